package org.cdlib.mrt.ingestqueue.queue;

import java.util.List;

/** {@code /jobs/JID/identifiers}: the object's primary id (an ARK) once known, and its local ids. */
public record Identifiers(String primary, List<String> localId) {

    public Identifiers {
        localId = localId == null ? List.of() : List.copyOf(localId);
    }

    public Identifiers withPrimary(String ark) {
        return new Identifiers(ark, localId);
    }
}
