package org.cdlib.mrt.ingestqueue.services;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/** The local default of storage (OCFL); Merritt's storage is called by routes/storing.yaml ({@link HttpStorage}). */
public interface Storage extends StorageAddresses {

    /** Adds a version made of the working directory's {@code producer/} and {@code system/} files. */
    StoredVersion add(Profile profile, String ark, Path workingDir, String manifest, String localId)
            throws ServiceException, InterruptedException;

    /**
     * The object's current version number, 0 when storage has no such object: asked before an
     * add, and again when an earlier add's answer was lost, to tell whether that add applied.
     */
    int currentVersion(Profile profile, String ark) throws ServiceException, InterruptedException;

    /**
     * Stores a version in add mode (exactly the working directory's files: {@link #add}) or in
     * update mode (the previous version's files not mentioned carried forward, {@code deletes}
     * removed). A storage that cannot update refuses update mode rather than replacing the object.
     * {@code digests}: each file's digest by {@link #contentDigest()} as the storage manifest's read computed it
     * ({@code producer/a.txt} to hex; a file missing is read and digested by storage), for a storage that can use
     * them.
     */
    default StoredVersion store(
            Profile profile,
            String ark,
            Path workingDir,
            String manifest,
            String localId,
            boolean update,
            List<Deletions.Delete> deletes,
            Map<String, String> digests)
            throws ServiceException, InterruptedException {
        if (update || !deletes.isEmpty()) {
            throw new ServiceException(getClass().getSimpleName() + " cannot make an update version of " + ark);
        }
        return add(profile, ark, workingDir, manifest, localId);
    }

    /**
     * Every file of a stored version (carried-forward ones included) when this storage can list
     * them, for the local inventory; null when it cannot (Merritt's inventory reads storage itself).
     */
    default List<ManifestFile> versionFiles(String ark, int version) throws ServiceException {
        return null;
    }
}
