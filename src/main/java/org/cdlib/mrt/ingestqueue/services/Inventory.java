package org.cdlib.mrt.ingestqueue.services;

import java.util.List;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/** Records a stored object version so it can be found (CONTRACTS §6). */
public interface Inventory {

    /**
     * @param files the storage manifest's rows: what the version holds
     */
    void add(Profile profile, StoredVersion version, List<String> localIds, List<ManifestFile> files)
            throws ServiceException, InterruptedException;

    /**
     * The highest version of the object inventory has recorded; 0 when it has none. What Merritt's
     * inventory answers at {@code GET /current/<ark>} (its {@code max(number)} of the object's
     * versions), asked before an add whose answer was lost is sent again.
     */
    int currentVersion(String ark) throws ServiceException;
}
