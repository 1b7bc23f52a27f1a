package org.cdlib.mrt.ingestqueue.services;

import java.util.List;

/**
 * What storage answered: the object, its new version number, and how the version was made —
 * {@code mode} add (exactly the submitted files) or update (the previous version's files carried
 * forward, {@code deleted} removed); kept in the job's {@code .stored.json} for recording and reports.
 */
public record StoredVersion(String ark, int version, String manifestUrl, String mode, List<String> deleted) {

    public StoredVersion {
        mode = mode == null ? "add" : mode;
        deleted = deleted == null ? List.of() : List.copyOf(deleted);
    }

    public StoredVersion(String ark, int version, String manifestUrl) {
        this(ark, version, manifestUrl, "add", List.of());
    }
}
