package org.cdlib.mrt.ingestqueue.queue.log;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.text.Text;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per committed transition (job, batch, from, to, why), and the in-process
 * listeners. The why may quote a depositor's text (an error naming their field): it is written
 * on the line ({@link Text#oneLine}) whatever the logging configuration's pattern does.
 */
public final class TransitionLog {
    private static final Logger LOG = LoggerFactory.getLogger(TransitionLog.class);
    private static final Logger TRANSITIONS = LoggerFactory.getLogger("ingestqueue.transitions");
    private final List<Consumer<TransitionEvent>> listeners = new CopyOnWriteArrayList<>();

    public void add(Consumer<TransitionEvent> l) {
        listeners.add(l);
    }

    public void remove(Consumer<TransitionEvent> l) {
        listeners.remove(l);
    }

    public void clear() {
        listeners.clear();
    }

    public void job(String jid, String bid, JobState from, JobState to, String reason) {
        TRANSITIONS.info("job {} batch {}: {} -> {}: {}", jid, bid, from, to, Text.oneLine(reason));
        fire(TransitionEvent.JOB, jid, bid, from.wire(), to.wire(), reason);
    }

    public void damagedRemoved(String jid, String bid, String reason) {
        TRANSITIONS.info("job {} batch {}: damaged -> deleted: {}", jid, bid, Text.oneLine(reason));
        fire(TransitionEvent.JOB, jid, bid, null, JobState.DELETED.wire(), reason);
    }

    /** {@code from} null: the batch is new (its submission), and the line says so. */
    public void batch(String bid, BatchState from, BatchState to, String reason) {
        TRANSITIONS.info("batch {}: {} -> {}: {}", bid, from == null ? "new" : from, to, Text.oneLine(reason));
        fire(TransitionEvent.BATCH, bid, bid, from == null ? null : from.wire(), to.wire(), reason);
    }

    public void fire(String kind, String id, String bid, String from, String to, String reason) {
        if (listeners.isEmpty()) {
            return;
        }
        TransitionEvent event = new TransitionEvent(kind, id, bid, from, to, reason, Instant.now());
        for (Consumer<TransitionEvent> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException e) {
                LOG.warn("transition listener failed: {}", e.toString());
            }
        }
    }
}
