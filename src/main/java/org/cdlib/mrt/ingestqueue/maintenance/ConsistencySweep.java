package org.cdlib.mrt.ingestqueue.maintenance;

import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.fsck.Violation;
import org.cdlib.mrt.ingestqueue.runtime.ElectedRoutes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consistency check's repair, run by one host (the cleanup leader, {@code routes/cleanup.yaml})
 * every {@code ingest.fsck.period}: each pass walks the next {@code ingest.fsck.batches-per-pass}
 * batch numbers (and the open state folders), so a pass stays bounded at any queue size and the
 * walk comes round to every batch in turn. What can be derived is repaired without a person,
 * never by breaking a live holder's lock (LockBreaks); what cannot is logged with the action that removes it,
 * once per pass, for the operator (and listed by {@code GET /api/fsck}).
 */
public final class ConsistencySweep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(ConsistencySweep.class);
    private final ConsistencyCheck check;
    private final int batchesPerPass;
    private long next = 0; // the oldest that may exist: the check starts from there

    public ConsistencySweep(ConsistencyCheck check, int batchesPerPass) {
        this.check = check;
        this.batchesPerPass = batchesPerPass;
    }

    @Override
    public synchronized void process(Exchange exchange) {
        ConsistencyCheck.Slice s = check.repairSlice(next, batchesPerPass,
                () -> ElectedRoutes.leads(exchange));
        next = s.next();
        Map<String, Integer> repaired = new TreeMap<>();
        Map<String, Integer> left = new TreeMap<>();
        for (Violation v : s.report().violations()) {
            (v.repaired() ? repaired : left).merge(v.kind(), 1, Integer::sum);
        }
        if (!repaired.isEmpty() || !left.isEmpty()) {
            LOG.warn(
                    "consistency sweep: batches {} to {}: repaired {}; for an operator {}",
                    s.from(),
                    s.to(),
                    repaired,
                    left);
            s.report().violations().stream().filter(v -> !v.repaired()).limit(20)
                    .forEach(v -> LOG.warn("consistency sweep: {} at {}: {}", v.kind(), v.path(), v.detail()));
        } else {
            // one line per clean pass at DEBUG: a soak counts the passes (and sees which host ran them)
            LOG.debug("consistency sweep: batches {} to {}: clean", s.from(), s.to());
        }
        exchange.getIn().setBody(s.report());
    }
}
