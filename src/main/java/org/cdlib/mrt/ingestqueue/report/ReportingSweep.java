package org.cdlib.mrt.ingestqueue.report;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.runtime.ElectedRoutes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety net for batch completion: the store moves a batch to reporting in the same breath
 * as its last job ends; should that step have been lost (a crash between the two), this sweep
 * finds the batch in processing with no open job and moves it.
 */
public final class ReportingSweep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(ReportingSweep.class);
    private final QueueStore store;

    public ReportingSweep(QueueStore store) {
        this.store = store;
    }

    @Override
    public void process(Exchange exchange) {
        for (String bid : store.batches().ids(BatchState.PROCESSING)) {
            if (!ElectedRoutes.leads(exchange)) {
                LOG.info("reporting sweep: the lead was lost; the rest is the new leader's");
                return;
            }
            if (store.batches().startReportingIfDone(bid)) {
                LOG.info("batch {}: found finished by the sweep", bid);
            }
        }
    }
}
