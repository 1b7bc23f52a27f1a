package org.cdlib.mrt.ingestqueue.queue;

import java.util.List;

/**
 * {@code /batches/BID/status-report}: the last report sent to the depositor.
 *
 * @param reports how many reports were sent (1 after the first, +1 per update report)
 */
public record StatusReport(String lastModified, List<String> failedJobs, List<String> successfulJobs, int reports) {
    public StatusReport {
        failedJobs = failedJobs == null ? List.of() : List.copyOf(failedJobs);
        successfulJobs = successfulJobs == null ? List.of() : List.copyOf(successfulJobs);
    }
}
