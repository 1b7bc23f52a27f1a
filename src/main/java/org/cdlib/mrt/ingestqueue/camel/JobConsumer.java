package org.cdlib.mrt.ingestqueue.camel;

import java.util.function.BooleanSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.outcome.JobOutcome;
import org.cdlib.mrt.ingestqueue.queue.outcome.JobOutcomes;
import org.cdlib.mrt.ingestqueue.queue.outcome.OutcomeStrategy;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;

/**
 * {@code zkqueue:job/<state>}: watches {@code /jobs/states/<state>}, takes each job's ephemeral
 * lock in priority order, runs it through its route, and hands what the route decided to the
 * jobs' {@link OutcomeStrategy}: success → the successor (or the state a step chose), an
 * exception or {@link JobExchange#fail} → failed with its message, {@link JobExchange#stay} →
 * unlocked, tried again after {@code retryDelay}. A job moving on to a state this process also
 * works on goes to that state's consumer with its lock ({@link ZkQueueComponent} finds it): a
 * place there is reserved before the commit, which keeps the lock for its worker, and the job is
 * handed to it after the commit ({@link #commit}).
 */
final class JobConsumer extends QueueConsumer<HeldJob, JobOutcomes> {

    private final JobState state;

    JobConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.state = endpoint.queue().jobState();
    }

    @Override
    protected JobOutcomes strategy(BooleanSupplier handingBack) {
        return OutcomeStrategy.jobs(store.claims(), store.moves(), store.holds(), endpoint.queue().jobState(),
                handingBack);
    }

    @Override
    protected StateView openView() {
        return store.jobStateView(state);
    }

    @Override
    public String idOf(String refName) {
        return QueuePaths.jidOfRef(refName);
    }

    @Override
    public boolean watchLock(String refName, CuratorWatcher watcher) {
        return store.watchJobLock(QueuePaths.jidOfRef(refName), watcher);
    }

    @Override
    public boolean concerns(TransitionEvent event) {
        return TransitionEvent.JOB.equals(event.kind()) && state.wire().equals(event.to());
    }

    /** A job whose batch or collection is held stops here, before its step starts (issue 45). */
    @Override
    protected OutcomeStrategy.Applied beforeRun(HeldJob lock) {
        return strategy.stopIfHeld(lock);
    }

    /** The job's profile from its configuration as the lock read it: no read more. */
    @Override
    protected String profileOf(HeldJob lock) {
        JobConfiguration c = lock.job().configuration();
        return c == null ? null : c.profileName();
    }

    @Override
    protected void prepare(HeldJob lock, Exchange exchange) {
        JobExchange.put(exchange, lock);
        exchange.getIn().setBody(lock.job());
        exchange.getIn().setHeader("jobId", lock.jid());
        exchange.getIn().setHeader("batchId", lock.job().batchId());
    }

    /**
     * When this process works on the state the job moves on to, the move keeps the lock for that
     * state's worker and the job goes straight to it, or waits for the next free one in its short
     * queue. A job handed over may start before an older one of that state only by the length of
     * that queue. When that queue is full too, this worker waits for a place (the next state's
     * {@code handOffWait}): the states before a saturated one slow down to its pace instead of
     * leaving jobs in its folder to be claimed again. The place is reserved before the commit and
     * taken (or given back) after it: nothing of the consumers runs while its transaction is in flight.
     */
    @Override
    protected OutcomeStrategy.Applied commit(HeldJob lock, Exchange exchange) {
        JobOutcome outcome = JobExchange.outcome(exchange);
        JobOutcomes.HandOff next = strategy.handOff(lock, outcome);
        HandOver.Place place = next == null ? null : endpoint.getComponent().reserve(next.to(), next.ref());
        if (place == null) {
            return strategy.commit(lock, outcome);
        }
        JobOutcomes.Committed committed;
        try {
            committed = strategy.commit(lock, outcome, place.worker());
        } catch (RuntimeException e) {
            place.cancel();
            throw e;
        }
        if (committed.kept() != null) {
            place.take(committed.kept());
        } else {
            place.cancel();
        }
        return committed.applied();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        endpoint.getComponent().started(state, handOver());
    }

    @Override
    protected void doStop() throws Exception {
        endpoint.getComponent().stopped(state, handOver());
        super.doStop();
    }
}
