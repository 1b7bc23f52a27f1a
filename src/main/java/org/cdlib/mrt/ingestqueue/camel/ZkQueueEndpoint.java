package org.cdlib.mrt.ingestqueue.camel;

import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.UriParam;
import org.apache.camel.support.DefaultEndpoint;

/** A zkqueue endpoint; consumer only (jobs and batches move by transitions, not by sending). */
public final class ZkQueueEndpoint extends DefaultEndpoint {

    private final QueueKind kind;
    @UriParam(defaultValue = "1", description = "jobs or batches worked on at once by this process")
    private int concurrency = 1;
    @UriParam(defaultValue = "30000", description = "ms between safety-net re-scans; watches do the real work")
    private long rescan = 30_000;
    @UriParam(defaultValue = "30000", description = "ms before a job that stayed (or a batch whose step failed) is tried again")
    private long retryDelay = 30_000;

    ZkQueueEndpoint(String uri, ZkQueueComponent component, QueueKind kind) {
        super(uri, component);
        this.kind = kind;
    }

    @Override
    public Producer createProducer() {
        throw new UnsupportedOperationException(getEndpointUri() + ": zkqueue endpoints only consume; "
                + "jobs move by the outcome of their route");
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        QueueConsumer<?> consumer = kind.isJob() ? new JobConsumer(this, processor) : new BatchConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    @Override
    public ZkQueueComponent getComponent() {
        return (ZkQueueComponent) super.getComponent();
    }

    QueueKind kind() {
        return kind;
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
}
