package org.cdlib.mrt.ingestqueue.camel;

import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;

/**
 * Takes the jobs of one job state, or the batches of one batch state, from the ZooKeeper queue,
 * one at a time each locked, and moves each by the outcome of its route. Consumer only: jobs and
 * batches move by transitions, not by sending.
 */
@UriEndpoint(
        firstVersion = "0.1.0",
        scheme = "zkqueue",
        title = "ZooKeeper Ingest Queue",
        syntax = "zkqueue:kind/state",
        consumerOnly = true,
        category = {Category.CLUSTERING})
public final class ZkQueueEndpoint extends DefaultEndpoint {

    @UriPath(enums = "job,batch", description = "whether jobs or batches are taken")
    @Metadata(required = true)
    private final String kind;

    @UriPath(
            enums =
                    "pending,estimating,provisioning,downloading,processing,storing,recording,notify,"
                            + "reporting,update-reporting",
            description =
                    "the state whose jobs (pending through notify) or batches (pending, reporting, update-reporting)"
                            + " are taken")
    @Metadata(required = true)
    private final String state;

    @UriParam(label = "consumer", defaultValue = "1", description = "jobs or batches worked on at once by this process")
    private int concurrency = 1;

    @UriParam(
            label = "consumer",
            defaultValue = "30000",
            description = "ms between safety-net re-scans; watches do the real work")
    private long rescan = 30_000;

    @UriParam(label = "consumer", defaultValue = "30000",
            description = "ms before a job that stayed (or a batch whose step failed) is tried again")
    private long retryDelay = 30_000;

    @UriParam(
            label = "consumer",
            defaultValue = "500",
            description =
                    "ms a worker of the state before waits for a place in this state's short queue when this state's"
                        + " workers and queue are full, before it leaves the job unlocked in this state's folder (0:"
                        + " never waits)")
    private long handOffWait = 500;

    private final QueueKind queue;

    ZkQueueEndpoint(String uri, ZkQueueComponent component, QueueKind queue) {
        super(uri, component);
        this.queue = queue;
        this.kind = queue.isJob() ? "job" : "batch";
        this.state = queue.isJob() ? queue.jobState().wire() : queue.batchState().wire();
    }

    @Override
    public Producer createProducer() {
        throw new UnsupportedOperationException(getEndpointUri() + ": zkqueue endpoints only consume; "
                + "jobs move by the outcome of their route");
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        QueueConsumer<?, ?> consumer =
                queue.isJob() ? new JobConsumer(this, processor) : new BatchConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    @Override
    public ZkQueueComponent getComponent() {
        return (ZkQueueComponent) super.getComponent();
    }

    QueueKind queue() {
        return queue;
    }

    public String getKind() {
        return kind;
    }

    public String getState() {
        return state;
    }

    public int getConcurrency() {
        return concurrency;
    }

    public void setConcurrency(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        this.concurrency = concurrency;
    }

    public long getRescan() {
        return rescan;
    }

    public void setRescan(long rescan) {
        this.rescan = Math.max(100, rescan);
    }

    public long getRetryDelay() {
        return retryDelay;
    }

    public void setRetryDelay(long retryDelay) {
        this.retryDelay = Math.max(0, retryDelay);
    }

    public long getHandOffWait() {
        return handOffWait;
    }

    public void setHandOffWait(long handOffWait) {
        this.handOffWait = Math.max(0, handOffWait);
    }
}
