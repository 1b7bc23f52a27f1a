package org.cdlib.mrt.ingestqueue.services;

import io.ocfl.api.DigestAlgorithmRegistry;
import io.ocfl.api.OcflObjectUpdater;
import io.ocfl.api.OcflOption;
import io.ocfl.api.OcflRepository;
import io.ocfl.api.model.FileDetails;
import io.ocfl.api.model.ObjectVersionId;
import io.ocfl.api.model.VersionDetails;
import io.ocfl.api.model.VersionInfo;
import io.ocfl.core.OcflRepositoryBuilder;
import io.ocfl.core.extension.storage.layout.config.HashedNTupleLayoutConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.commons.io.FileUtils;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/**
 * The embedded default: objects kept on disk in OCFL layout (ocfl-java), one OCFL object per
 * ARK, one version per ingest: in add mode exactly the object's {@code producer/} and {@code system/}
 * files, in update mode the previous version's producer files carried forward with the submitted
 * ones added and {@code mrt-delete.txt}'s removed. Any OCFL tool can read the store.
 *
 * <p>A {@code producer/} file whose SHA-512 the storage manifest's read computed is not read or copied again: a hard
 * link to it is made in a hand-off directory under {@code work/} and that link moved into the version (same file
 * system: a rename). The working directory keeps its name for the file, so a store retried after a crash at any
 * point still finds every file; the download puts each file there by a rename, never rewriting one in place, so the
 * shared bytes do not change under storage. A file system without hard links, or the working directory on another
 * one, gets the copy ({@code system/} files always do: storing rewrites its manifest on each attempt).
 */
public final class OcflStorage implements Storage {
    /** ocfl-java's default inventory digest, and the one this store asks the storage manifest for. */
    private static final String OCFL_SHA512 = "sha512";
    private final OcflRepository repository;
    private final Path root;
    private final Path work;

    public OcflStorage(Path root) throws IOException {
        this.root = root.toAbsolutePath();
        this.work = Files.createDirectories(this.root.resolve("work"));
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

    /** The repository's inventory digest (ocfl-java's default), which the storage manifest computes on its read. */
    @Override
    public DigestAlgorithm contentDigest() {
        return DigestAlgorithm.SHA512;
    }

    @Override
    public String fileUrl(String bid, String jid, Path file, String relativePath) {
        return file.toAbsolutePath().toUri().toString();
    }

    @Override
    public StoredVersion add(Profile profile, String ark, Path workingDir, String manifest, String localId)
            throws ServiceException {
        return store(profile, ark, workingDir, manifest, localId, false, List.of(), Map.of());
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
            List<Deletions.Delete> deletes,
            Map<String, String> digests)
            throws ServiceException {
        VersionDetails head;
        boolean sha512;
        try {
            // only update mode carries the head version's files forward and checks deletions against it
            boolean exists = repository.containsObject(ark);
            head = update && exists ? repository.describeVersion(ObjectVersionId.head(ark)) : null;
            // an object begun by another tool may keep its files by another digest: those are digested by OCFL
            sha512 = !exists || OCFL_SHA512.equals(repository.describeObject(ark).getDigestAlgorithm().getOcflName());
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
        Path handOff = null;
        try {
            if (sha512 && !digests.isEmpty()) {
                handOff = Files.createTempDirectory(work, "hand-off-");
            }
            Path links = handOff;
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
                        Path producer = workingDir.resolve("producer");
                        if (links != null && Files.isDirectory(producer)) {
                            addLinked(u, producer, links, digests);
                        } else if (Files.isDirectory(producer)) {
                            u.addPath(producer, "producer", OcflOption.OVERWRITE);
                        }
                        Path system = workingDir.resolve("system");
                        if (Files.isDirectory(system)) {
                            u.addPath(system, "system", OcflOption.OVERWRITE);
                        }
                    });
            return new StoredVersion(
                    ark,
                    (int) v.getVersionNum().getVersionNum(),
                    manifestUrl(profile, ark),
                    update ? "update" : "add",
                    update ? deletes.stream().map(Deletions.Delete::name).toList() : List.of());
        } catch (IOException | RuntimeException e) {
            throw new ServiceException(
                    "local storage " + root + ": cannot add a version of " + ark + ": " + e.getMessage(), e);
        } finally {
            if (handOff != null) {
                FileUtils.deleteQuietly(handOff.toFile()); // links OCFL did not take (a failed update)
            }
        }
    }

    /**
     * Each file of {@code producer/} into the version: linked into {@code links} and that link moved in, its
     * digest as given; a file with no digest given, or one that cannot be linked (another file system), copied
     * and digested by OCFL.
     */
    private static void addLinked(OcflObjectUpdater u, Path producer, Path links, Map<String, String> digests) {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(producer)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path f : files) {
            String name = "producer/" + producer.relativize(f).toString().replace('\\', '/');
            String digest = digests.get(name);
            Path link = links.resolve(producer.relativize(f).toString());
            if (digest != null && linked(link, f)) {
                u.unsafeAddPath(digest, link, name, OcflOption.OVERWRITE, OcflOption.MOVE_SOURCE);
            } else {
                u.addPath(f, name, OcflOption.OVERWRITE);
            }
        }
    }

    private static boolean linked(Path link, Path file) {
        try {
            Files.createDirectories(link.getParent());
            Files.createLink(link, file);
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false; // another file system, or one without hard links: the copy
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
                String sha512 = f.getFixity().get(DigestAlgorithmRegistry.getAlgorithm(OCFL_SHA512));
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
