package org.cdlib.mrt.ingestqueue.services;

import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/** Where objects are kept (CONTRACTS §5): each ingest adds a version of the object. */
public interface Storage {

    /** The URL the storage manifest gives for a file of the working directory ({@code producer/a.txt}). */
    String fileUrl(String bid, String jid, Path file, String relativePath);

    /** Adds a version made of the working directory's {@code producer/} and {@code system/} files. */
    StoredVersion add(Profile profile, String ark, Path workingDir, String manifest, String localId)
            throws ServiceException, InterruptedException;

    /**
     * The object's current version number, 0 when storage has no such object: asked before an
     * add, and again when an earlier add's answer was lost, to tell whether that add applied.
     */
    int currentVersion(Profile profile, String ark) throws ServiceException, InterruptedException;

    /** The URL of the object's storage manifest, which inventory reads. */
    String manifestUrl(Profile profile, String ark);
}
