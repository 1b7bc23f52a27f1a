package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.List;

/**
 * {@code /batches/BID/status-report}: the last report sent to the depositor. The lists name at
 * most {@link QueueLimits#REPORT_LISTED_JOBS} jobs each (the counts are whole), so the node stays
 * small whatever the batch's size.
 *
 * @param reports how many reports were sent (1 after the first, +1 per update report)
 */
public record StatusReport(String lastModified, List<String> failedJobs, List<String> successfulJobs, int reports,
                           Integer failedCount, Integer successfulCount) {
    public StatusReport {
        failedJobs = failedJobs == null ? List.of() : List.copyOf(failedJobs.subList(0,
                Math.min(failedJobs.size(), QueueLimits.REPORT_LISTED_JOBS)));
        successfulJobs = successfulJobs == null ? List.of() : List.copyOf(successfulJobs.subList(0,
                Math.min(successfulJobs.size(), QueueLimits.REPORT_LISTED_JOBS)));
    }

    public StatusReport(String lastModified, List<String> failedJobs, List<String> successfulJobs, int reports) {
        this(lastModified, failedJobs, successfulJobs, reports, failedJobs == null ? 0 : failedJobs.size(),
                successfulJobs == null ? 0 : successfulJobs.size());
    }
}
