package org.cdlib.mrt.ingestqueue.services;

import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/** Where a storage manifest points storage to fetch a file, and where inventory reads the manifest of an object. */
public interface StorageAddresses {

    /** The URL the storage manifest gives for a file of the working directory ({@code producer/a.txt}). */
    String fileUrl(String bid, String jid, Path file, String relativePath);

    /** The URL of the object's storage manifest, which inventory reads. */
    String manifestUrl(Profile profile, String ark);
}
