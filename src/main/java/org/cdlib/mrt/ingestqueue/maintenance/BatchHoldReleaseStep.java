package org.cdlib.mrt.ingestqueue.maintenance;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.queue.admin.BatchHoldRelease;

/**
 * The timer's pass over released batch holds (issue 45), on every host: the jobs a lifted hold stopped are
 * released in bounded chunks, whichever host lifted it and whether or not it still runs ({@link BatchHoldRelease}).
 */
public final class BatchHoldReleaseStep implements Processor {
    private final BatchHoldRelease releases;

    public BatchHoldReleaseStep(BatchHoldRelease releases) {
        this.releases = releases;
    }

    @Override
    public void process(Exchange exchange) {
        releases.pass();
    }
}
