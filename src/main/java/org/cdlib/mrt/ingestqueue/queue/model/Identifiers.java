package org.cdlib.mrt.ingestqueue.queue.model;

import com.fasterxml.jackson.annotation.JsonAlias;
import java.util.List;

/**
 * {@code /jobs/JID/identifiers} in mrt-zk's form: {@code primary_id} (the object's ARK, empty until
 * known: Merritt's readers take it as a string) and {@code local_id} (a list). The form this queue
 * wrote before ({@code primary}) is read too.
 */
public record Identifiers(@JsonAlias("primary") String primaryId, List<String> localId) {

    public Identifiers {
        primaryId = primaryId == null ? "" : primaryId;
        localId = localId == null ? List.of() : List.copyOf(localId);
    }

    /** The ARK; null until one is known. */
    public String primary() {
        return primaryId.isEmpty() ? null : primaryId;
    }

    public Identifiers withPrimary(String ark) {
        return new Identifiers(ark, localId);
    }
}
