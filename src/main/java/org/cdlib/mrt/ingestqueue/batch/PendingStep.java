package org.cdlib.mrt.ingestqueue.batch;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * Job Pending: a job of a held collection goes to held (an operator releases it, or the whole
 * collection, later); any other job goes on to estimating. The whole-queue hold never gets
 * here: while it is set, no consumer takes work.
 */
public final class PendingStep implements Processor {
    private final QueueStore store;

    public PendingStep(QueueStore store) {
        this.store = store;
    }

    @Override
    public void process(Exchange exchange) {
        Job job = JobExchange.job(exchange);
        String profile = job.configuration().profileName();
        if (store.holds().isCollectionHeld(profile)) {
            JobExchange.moveTo(exchange, JobState.HELD, "collection " + profile + " is held");
        } else {
            JobExchange.change(exchange, c -> Change.because("no hold applies"));
        }
    }
}
