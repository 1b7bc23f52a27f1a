package org.cdlib.mrt.ingestqueue.maintenance;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.queue.AdminActions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The cleanup task's step: removes batches completed longer ago than the retention, with their jobs. */
public final class CleanupStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(CleanupStep.class);
    private final AdminActions admin;
    private final Duration retention;

    public CleanupStep(AdminActions admin, Duration retention) {
        this.admin = admin;
        this.retention = retention;
    }

    @Override
    public void process(Exchange exchange) {
        AdminActions.CleanupResult r = admin.cleanup(retention);
        if (r.batches() > 0) {
            LOG.info("cleanup: removed {} batch(es) and {} job(s) completed more than {} ago", r.batches(), r.jobs(), retention);
        }
        exchange.getMessage().setBody(r);
    }
}
