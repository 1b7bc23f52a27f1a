package org.cdlib.mrt.ingestqueue.figures;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.hosts.ActivityMinutes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The estimates' measured error, shared by the hosts that answer progress: each writes the newest
 * errors it checked ({@link EstimateErrors#own}, at most {@link EstimateErrors#SHARED} numbers) to
 * {@code /activity/errors/<host>} when it checked more, and reads the other hosts' at most every
 * {@link #READ_MS}, so every host's range learns from every checked estimate, whichever host's page
 * saw the batch end. A node not rewritten for {@link ActivityMinutes#KEPT_MINUTES} is left out and
 * deleted; a damaged number adds nothing.
 */
final class SharedErrors {
    private static final Logger LOG = LoggerFactory.getLogger(SharedErrors.class);
    static final long READ_MS = 30_000;
    private final QueueStore store;
    private final Clock clock;
    /** When the other hosts' errors were read; -1: never. */
    private long readAt = -1;

    SharedErrors(QueueStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Writes this host's newest checked errors (after a batch's estimates were checked). */
    void publish(EstimateErrors errors) {
        try {
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("at", clock.instant().toString());
            node.put("errors", errors.own());
            store.activity().writeErrors(store.hosts().id(), node);
        } catch (RuntimeException e) {
            LOG.debug("estimates' errors not written this time: {}", e.getMessage());
        }
    }

    /** The other hosts' checked errors, read again when {@link #READ_MS} passed since the last read. */
    void readIfDue(EstimateErrors errors) {
        long now = clock.millis();
        if (readAt >= 0 && now - readAt < READ_MS && now >= readAt) {
            return;
        }
        readAt = now;
        try {
            Instant old = clock.instant().minus(Duration.ofMinutes(ActivityMinutes.KEPT_MINUTES));
            List<Double> others = new ArrayList<>();
            store.activity().readErrors().forEach((host, n) -> {
                if (StepTimes.at(n).isBefore(old)) {
                    store.activity().dropErrors(host);
                } else if (!host.equals(store.hosts().id())) {
                    others.addAll(errorsOf(n));
                }
            });
            errors.others(others);
        } catch (RuntimeException e) {
            LOG.debug("other hosts' estimates' errors not read this time: {}", e.getMessage());
        }
    }

    /** A node's errors, given in percent; one below -100% (an actual time below zero) or absurdly large is damaged. */
    static List<Double> errorsOf(JsonNode n) {
        List<Double> out = new ArrayList<>();
        JsonNode list = n.path("errors");
        for (int i = 0; i < Math.min(list.size(), EstimateErrors.SHARED); i++) {
            JsonNode v = list.get(i);
            if (v.isIntegralNumber() && v.asLong() >= -100 && v.asLong() <= 100_000) {
                out.add(v.asLong() / 100.0);
            }
        }
        return out;
    }
}
