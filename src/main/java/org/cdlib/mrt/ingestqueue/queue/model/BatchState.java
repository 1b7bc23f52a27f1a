package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The states of a batch. {@link #zk()} (mrt-zk's enum name, {@code UpdateReporting}) is what
 * {@code /batches/BID/status} holds; {@link #wire()} ({@code update-reporting}) is the API's name.
 */
public enum BatchState {
    PENDING, HELD, PROCESSING, REPORTING, COMPLETED, FAILED, UPDATE_REPORTING, DELETED;

    /** States whose index folders are kept small by admission control, so they can be listed. */
    public static final List<BatchState> OPEN = List.of(PENDING, HELD, PROCESSING, REPORTING, UPDATE_REPORTING);

    public String wire() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The name in a status node: mrt-zk's enum name. */
    public String zk() {
        return zkName;
    }

    private final String zkName = Arrays.stream(name().split("_"))
            .map(p -> p.charAt(0) + p.substring(1).toLowerCase(Locale.ROOT)).collect(Collectors.joining());

    /** A state named either way (mrt-zk's {@code UpdateReporting}, or {@code update-reporting}). */
    public static BatchState fromWire(String value) {
        for (BatchState s : values()) {
            if (s.wire().equals(value) || s.zk().equals(value)) {
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
