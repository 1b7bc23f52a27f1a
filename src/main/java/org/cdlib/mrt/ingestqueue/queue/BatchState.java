package org.cdlib.mrt.ingestqueue.queue;

import java.util.Locale;

/** The states of a batch; the wire name is what {@code /batches/BID/status} holds. */
public enum BatchState {
    PENDING, HELD, PROCESSING, REPORTING, COMPLETED, FAILED, UPDATE_REPORTING, DELETED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static BatchState fromWire(String value) {
        for (BatchState s : values()) {
            if (s.wire().equals(value)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown batch state '" + value + "'");
    }

    @Override
    public String toString() {
        return wire();
    }
}
