package org.cdlib.mrt.ingestqueue.camel;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.Outcome;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.model.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.outcome.OutcomeStrategy;
import org.cdlib.mrt.ingestqueue.queue.zk.StateView;

/**
 * {@code zkqueue:job/<state>}: watches {@code /jobs/states/<state>}, takes each job's ephemeral
 * lock in priority order, runs it through its route, and hands what the route decided to the
 * jobs' {@link OutcomeStrategy}: success → the successor (or the state a step chose), an
 * exception or {@link JobExchange#fail} → failed with its message, {@link JobExchange#stay} →
 * unlocked, tried again after {@code retryDelay}. A job moving on to a state this process also
 * works on goes to that state's consumer with its lock ({@link ZkQueueComponent} finds it).
 */
final class JobConsumer extends QueueConsumer<JobLock, JobState> {

    private final JobState state;

    JobConsumer(ZkQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.state = endpoint.queue().jobState();
    }

    @Override
    protected OutcomeStrategy<JobLock, JobState> strategy(BooleanSupplier handingBack) {
        return OutcomeStrategy.jobs(store.moves(), endpoint.queue().jobState(), endpoint.getComponent(), handingBack);
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
    protected Optional<JobLock> claim(String refName, String worker) {
        return store.claims().claim(state, refName, worker);
    }

    @Override
    public List<Supplier<Optional<JobLock>>> claimAll(List<String> refNames, String worker) {
        return store.claims().claimAll(state, refNames, worker);
    }

    @Override
    public boolean watchLock(String refName, CuratorWatcher watcher) {
        return store.watchJobLock(QueuePaths.jidOfRef(refName), watcher);
    }

    @Override
    public boolean concerns(TransitionEvent event) {
        return TransitionEvent.JOB.equals(event.kind()) && state.wire().equals(event.to());
    }

    @Override
    protected void prepare(JobLock lock, Exchange exchange) {
        JobExchange.put(exchange, lock);
        exchange.getIn().setBody(lock.job());
        exchange.getIn().setHeader("jobId", lock.jid());
        exchange.getIn().setHeader("batchId", lock.job().batchId());
    }

    @Override
    protected Outcome<JobState> outcomeOf(Exchange exchange) {
        return JobExchange.outcome(exchange);
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
