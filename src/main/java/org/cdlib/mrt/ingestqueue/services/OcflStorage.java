package org.cdlib.mrt.ingestqueue.services;

import io.ocfl.api.OcflOption;
import io.ocfl.api.OcflRepository;
import io.ocfl.api.model.DigestAlgorithm;
import io.ocfl.api.model.FileDetails;
import io.ocfl.api.model.ObjectVersionId;
import io.ocfl.api.model.VersionDetails;
import io.ocfl.api.model.VersionInfo;
import io.ocfl.core.OcflRepositoryBuilder;
import io.ocfl.core.extension.storage.layout.config.HashedNTupleLayoutConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/**
 * The embedded default: objects kept on disk in OCFL layout (ocfl-java), one OCFL object per
 * ARK, one version per ingest: in add mode exactly the object's {@code producer/} and {@code system/}
 * files, in update mode the previous version's producer files carried forward with the submitted
 * ones added and {@code mrt-delete.txt}'s removed. Any OCFL tool can read the store.
 */
public final class OcflStorage implements Storage {
    private final OcflRepository repository;
    private final Path root;

    public OcflStorage(Path root) throws IOException {
        this.root = root.toAbsolutePath();
        Path work = Files.createDirectories(this.root.resolve("work"));
        Path objects = Files.createDirectories(this.root.resolve("objects"));
        this.repository = new OcflRepositoryBuilder()
                .defaultLayoutConfig(new HashedNTupleLayoutConfig())
                .storage(s -> s.fileSystem(objects))
                .workDir(work)
                .build();
    }

    public OcflRepository repository() {
        return repository;
    }

    @Override
    public String fileUrl(String bid, String jid, Path file, String relativePath) {
        return file.toAbsolutePath().toUri().toString();
    }

    @Override
    public StoredVersion add(Profile profile, String ark, Path workingDir, String manifest, String localId)
            throws ServiceException {
        return store(profile, ark, workingDir, manifest, localId, false, List.of());
    }

    /**
     * Add mode (and the first version of an object in either mode): the new version holds exactly
     * the working directory's {@code producer/} and {@code system/} files. Update mode: the head
     * version's {@code producer/} files are carried forward, the submitted ones added or replaced,
     * the deletions removed; {@code system/} is this version's own. A delete naming a file the head
     * version does not have fails naming its line of mrt-delete.txt, before anything is written.
     */
    @Override
    public StoredVersion store(
            Profile profile,
            String ark,
            Path workingDir,
            String manifest,
            String localId,
            boolean update,
            List<Deletions.Delete> deletes)
            throws ServiceException {
        VersionDetails head;
        try {
            // only update mode carries the head version's files forward and checks deletions against it
            head = update && repository.containsObject(ark)
                    ? repository.describeVersion(ObjectVersionId.head(ark))
                    : null;
        } catch (RuntimeException e) {
            throw new ServiceException("local storage " + root + ": cannot read " + ark + ": " + e.getMessage(), e);
        }
        boolean carry = update && head != null;
        if (update) {
            for (Deletions.Delete d : deletes) {
                if (head == null || !head.containsFile(d.name())) {
                    throw new Deletions.DeleteLineException(d.line(), d.text(), head == null
                            ? ark + " has no version yet, so it has no file " + d.name()
                            : ark + " version " + head.getVersionNum() + " has no file " + d.name());
                }
            }
        }
        try {
            ObjectVersionId v = repository.updateObject(
                    ObjectVersionId.head(ark),
                    new VersionInfo()
                            .setMessage(
                                    (update ? "update" : "ingest") + " of " + ark + " (profile " + profile.id() + ")")
                            .setUser("ingest-queue", null),
                    u -> {
                        if (!carry) {
                            u.clearVersionState();
                        } else {
                            for (FileDetails f : head.getFiles()) {
                                if (f.getPath().startsWith("system/")) {
                                    u.removeFile(f.getPath());
                                }
                            }
                            for (Deletions.Delete d : deletes) {
                                u.removeFile(d.name());
                            }
                        }
                        for (String part : new String[] {"producer", "system"}) {
                            Path dir = workingDir.resolve(part);
                            if (Files.isDirectory(dir)) {
                                u.addPath(dir, part, OcflOption.OVERWRITE);
                            }
                        }
                    });
            return new StoredVersion(
                    ark,
                    (int) v.getVersionNum().getVersionNum(),
                    manifestUrl(profile, ark),
                    update ? "update" : "add",
                    update ? deletes.stream().map(Deletions.Delete::name).toList() : List.of());
        } catch (RuntimeException e) {
            throw new ServiceException(
                    "local storage " + root + ": cannot add a version of " + ark + ": " + e.getMessage(), e);
        }
    }

    /** The files of a stored version as inventory lists them (size and the OCFL sha-512), in name order. */
    @Override
    public List<ManifestFile> versionFiles(String ark, int version) throws ServiceException {
        try {
            VersionDetails d = repository.describeVersion(ObjectVersionId.version(ark, version));
            List<ManifestFile> files = new ArrayList<>();
            for (FileDetails f : d.getFiles()) {
                if (f.getPath().equals("system/mrt-manifest.txt")) {
                    continue; // as in the storage manifest, which does not list itself
                }
                Path stored = root.resolve("objects").resolve(f.getStorageRelativePath());
                String sha512 = f.getFixity().get(DigestAlgorithm.sha512);
                files.add(new ManifestFile(f.getPath(), Files.size(stored), "sha-512", sha512,
                        Files.probeContentType(stored)));
            }
            files.sort(Comparator.comparing(ManifestFile::name));
            return files;
        } catch (IOException | RuntimeException e) {
            throw new ServiceException(
                    "local storage " + root + ": cannot list " + ark + " version " + version + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public int currentVersion(Profile profile, String ark) throws ServiceException {
        try {
            return repository.containsObject(ark)
                    ? (int) repository.describeObject(ark).getHeadVersionNum().getVersionNum()
                    : 0;
        } catch (RuntimeException e) {
            throw new ServiceException("local storage " + root + ": cannot read " + ark + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String manifestUrl(Profile profile, String ark) {
        return root.resolve("objects").toUri() + "#" + ark;
    }
}
