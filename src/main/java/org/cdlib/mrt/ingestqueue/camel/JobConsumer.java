package org.cdlib.mrt.ingestqueue.camel;

import java.util.Optional;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.Change;
import org.cdlib.mrt.ingestqueue.queue.JobLock;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.QueueException;
import org.cdlib.mrt.ingestqueue.queue.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.StateView;
import org.cdlib.mrt.ingestqueue.queue.TransitionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code zkqueue:job/<state>}: watches {@code /jobs/states/<state>}, takes each job's ephemeral
 * lock in priority order, and moves the job by the route's outcome in one transaction:
 * success → the successor (or the state a step chose), an exception or {@link JobExchange#fail}
 * → failed with its message, {@link JobExchange#stay} → unlocked, tried again after
 * {@code retryDelay}. The queue's own trouble leaves the job where it is; a lock lost with its
 * session abandons the work to whoever holds the job now.
 */
final class JobConsumer extends QueueConsumer<JobLock> {
    private static final Logger LOG = LoggerFactory.getLogger(JobConsumer.class);

    private final JobState state;

    JobConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.state = endpoint.queue().jobState();
    }

    @Override
    protected StateView openView() {
        return store.jobStateView(state);
    }

    @Override
    protected String idOf(String refName) {
        return org.cdlib.mrt.ingestqueue.queue.QueuePaths.jidOfRef(refName);
    }

    @Override
    protected Optional<JobLock> claim(String refName, String worker) {
        return store.claims().claim(state, refName, worker);
    }

    @Override
    protected java.util.List<java.util.function.Supplier<Optional<JobLock>>> claimAll(java.util.List<String> refNames,
                                                                                        String worker) {
        return store.claims().claimAll(state, refNames, worker);
    }

    @Override
    protected boolean watchLock(String refName, CuratorWatcher watcher) {
        return store.watchJobLock(org.cdlib.mrt.ingestqueue.queue.QueuePaths.jidOfRef(refName), watcher);
    }

    @Override
    protected boolean concerns(TransitionEvent event) {
        return TransitionEvent.JOB.equals(event.kind()) && state.wire().equals(event.to());
    }

    @Override
    protected void prepare(JobLock lock, Exchange exchange) {
        exchange.setProperty(JobExchange.LOCK, lock);
        exchange.getIn().setBody(lock.job());
        exchange.getIn().setHeader("jobId", lock.jid());
        exchange.getIn().setHeader("batchId", lock.job().batchId());
    }

    @Override
    protected boolean applyOutcome(JobLock lock, Exchange exchange, boolean failed) {
        try {
            return failed ? rollback(lock, exchange.getException()) : commit(lock, exchange);
        } catch (org.cdlib.mrt.ingestqueue.queue.SpaceReservation.Conflict e) {
            // admitted on a disk figure another admission changed meanwhile: nothing was written, decide again now
            LOG.debug("{}", e.getMessage());
            unlockQuietly(lock);
            lookAgainSoon();
            return false;
        } catch (StaleLockException e) {
            LOG.warn("job {} batch {}: work in {} abandoned, another worker will redo it: {}",
                    lock.jid(), lock.job().batchId(), state, e.getMessage());
            return false;
        } catch (QueueException e) {
            LOG.error("job {} batch {}: cannot move out of {}: {}", lock.jid(), lock.job().batchId(), state, e.getMessage());
            unlockQuietly(lock);
            return true;
        }
    }

    /** The route ended normally: the job moves on, stays, or fails as a step said. */
    private boolean commit(JobLock lock, Exchange exchange) {
        String failed = JobExchange.failure(exchange);
        if (failed != null && handingBack()) {
            return handBack(lock, failed);
        }
        if (failed != null) {
            store.transition(lock, JobState.FAILED, Change.failure(state.wire() + ": " + failed));
            movedOut(lock.job().refName());
            return false;
        }
        String stay = JobExchange.stayReason(exchange);
        if (stay != null) {
            store.unlock(lock);
            LOG.info("job {} batch {}: stays in {}: {}", lock.jid(), lock.job().batchId(), state, stay);
            return true;
        }
        JobState target = JobExchange.target(exchange);
        JobState to = target != null ? target : state.successor();
        if (!handOff(lock, to, JobExchange.change(exchange))) {
            store.transition(lock, to, JobExchange.change(exchange));
        }
        movedOut(lock.job().refName());
        return false;
    }

    /**
     * When this process has a consumer of the next state, the move keeps the lock for it and the
     * job goes straight to one of its workers, or waits for the next free one in its short queue:
     * one ZooKeeper request per transition instead of three (lock create, read, commit). A job
     * handed over may start before an older one of that state only by the length of that queue.
     * When that queue is full too, this worker waits for a place (the next state's
     * {@code handOffWait}): the states before a saturated one slow down to its pace instead of
     * leaving jobs in its folder to be claimed again.
     */
    private boolean handOff(JobLock lock, JobState to, Change change) {
        JobConsumer next = endpoint.getComponent().jobConsumer(to);
        String ref = QueuePaths.refName(change.priority() != null ? change.priority() : lock.job().priority(), lock.jid());
        if (next == null) {
            return false;
        }
        HandOver<JobLock> handOver = next.handOver();
        boolean worker = handOver.reserveWorker(ref);
        if (!worker) {
            long since = System.nanoTime();
            boolean queued = handOver.reserveQueued(ref);
            waitedForNext(System.nanoTime() - since);
            if (!queued) {
                return false;
            }
        }
        JobLock handed;
        try {
            handed = store.transitionAndKeep(lock, to, change, next.workerName());
        } catch (RuntimeException e) {
            handOver.unreserveWorker(ref, worker);
            throw e;
        }
        handOver.takeOver(handed.job().refName(), handed, worker);
        return true;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        endpoint.getComponent().started(state, this);
    }

    @Override
    protected void doStop() throws Exception {
        endpoint.getComponent().stopped(state, this);
        super.doStop();
    }

    /** The route ended with an exception: the job fails, unless it was the queue's trouble or the stop's. */
    private boolean rollback(JobLock lock, Exception failure) {
        if (handingBack()) {
            return handBack(lock, messageOf(failure));
        }
        Throwable cause = unwrap(failure);
        if (cause instanceof StaleLockException) {
            LOG.warn("job {} batch {}: work in {} abandoned, another worker will redo it: {}",
                    lock.jid(), lock.job().batchId(), state, cause.getMessage());
            return false;
        }
        if (cause instanceof org.cdlib.mrt.ingestqueue.queue.LeaseLapsedException) {
            LOG.warn("job {} batch {}: stays in {}: {}", lock.jid(), lock.job().batchId(), state, cause.getMessage());
            unlockQuietly(lock);
            return true;
        }
        if (cause instanceof QueueException && !(cause instanceof org.cdlib.mrt.ingestqueue.queue.CorruptNodeException)) {
            // ZooKeeper's trouble, not the job's: it stays where it is and is tried again
            LOG.warn("job {} batch {}: stays in {}, the queue could not be reached: {}", lock.jid(), lock.job().batchId(),
                    state, cause.getMessage());
            unlockQuietly(lock);
            return true;
        }
        store.transition(lock, JobState.FAILED, Change.failure(state.wire() + ": " + messageOf(failure)));
        movedOut(lock.job().refName());
        return false;
    }

    private boolean handBack(JobLock lock, String interruption) {
        store.unlock(lock);
        LOG.info("job {} batch {}: handed back in {} at shutdown (step interrupted: {}); another worker takes it",
                lock.jid(), lock.job().batchId(), state, interruption);
        return false;
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while (t != null && !(t instanceof QueueException) && t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    protected void release(JobLock lock) {
        unlockQuietly(lock);
    }

    private void unlockQuietly(JobLock lock) {
        try {
            store.unlock(lock);
        } catch (RuntimeException e) {
            LOG.warn("job {}: cannot release its lock (it goes with the session): {}", lock.jid(), e.getMessage());
        }
    }
}
