package org.cdlib.mrt.ingestqueue.services;

import io.ocfl.api.OcflOption;
import io.ocfl.api.OcflRepository;
import io.ocfl.api.model.ObjectVersionId;
import io.ocfl.api.model.VersionInfo;
import io.ocfl.core.OcflRepositoryBuilder;
import io.ocfl.core.extension.storage.layout.config.HashedNTupleLayoutConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/**
 * The embedded default: objects kept on disk in OCFL layout (ocfl-java), one OCFL object per
 * ARK, one version per ingest holding exactly the object's {@code producer/} and {@code system/}
 * files. Any OCFL tool can read the store.
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
        try {
            ObjectVersionId v = repository.updateObject(ObjectVersionId.head(ark),
                    new VersionInfo().setMessage("ingest of " + ark + " (profile " + profile.id() + ")")
                            .setUser("ingest-queue", null),
                    u -> {
                        u.clearVersionState();
                        for (String part : new String[] {"producer", "system"}) {
                            Path dir = workingDir.resolve(part);
                            if (Files.isDirectory(dir)) {
                                u.addPath(dir, part, OcflOption.OVERWRITE);
                            }
                        }
                    });
            return new StoredVersion(ark, (int) v.getVersionNum().getVersionNum(), manifestUrl(profile, ark));
        } catch (RuntimeException e) {
            throw new ServiceException("local storage " + root + ": cannot add a version of " + ark + ": " + e.getMessage(), e);
        }
    }

    @Override
    public int currentVersion(Profile profile, String ark) throws ServiceException {
        try {
            return repository.containsObject(ark) ? (int) repository.describeObject(ark).getHeadVersionNum().getVersionNum() : 0;
        } catch (RuntimeException e) {
            throw new ServiceException("local storage " + root + ": cannot read " + ark + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String manifestUrl(Profile profile, String ark) {
        return root.resolve("objects").toUri() + "#" + ark;
    }
}
