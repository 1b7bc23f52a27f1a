package org.cdlib.mrt.ingestqueue.services;

import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/** Where a storage manifest points storage to fetch a file, and where inventory reads the manifest of an object. */
public interface StorageAddresses {

    /** The URL the storage manifest gives for a file of the working directory ({@code producer/a.txt}). */
    String fileUrl(String bid, String jid, Path file, String relativePath);

    /** The URL of the object's storage manifest, which inventory reads. */
    String manifestUrl(Profile profile, String ark);

    /**
     * The digest this storage keeps files by, computed on the storage manifest's own read of each file and handed to
     * the add (the {@code digests} of {@link Storage}'s {@code store}), so storage need not read the file again;
     * null: none (Merritt's storage fetches and digests the files itself).
     */
    default DigestAlgorithm contentDigest() {
        return null;
    }
}
