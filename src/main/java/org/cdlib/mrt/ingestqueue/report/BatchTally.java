package org.cdlib.mrt.ingestqueue.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.jobs.Jobs;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * What a batch's jobs came to, read by walking the batch's run of job ids in bounded reads:
 * whole counts, and the jobs themselves up to {@link #LISTED} of each kind (what a report mail
 * can carry), so a million-job batch is reported in bounded memory.
 */
record BatchTally(int completedCount, int failedCount, int openCount, List<Job> completed, List<Job> failed) {
    static final int LISTED = 10_000;
    /**
     * Jobs whose statuses are read together: a thousand statuses of at most 8 KB, their read transactions sent at once.
     */
    private static final int RUN = 1000;

    static BatchTally of(QueueStore store, Batch batch) {
        return of(store, batch, LISTED);
    }

    /** Each job's status node says what it came to; only the jobs the lists still take are read whole. */
    static BatchTally of(QueueStore store, Batch batch, int listed) {
        List<String> ids = new ArrayList<>(batch.jobIds());
        ids.addAll(store.batches().othersJobs(batch));
        List<Job> completed = new ArrayList<>();
        List<Job> failed = new ArrayList<>();
        int c = 0;
        int f = 0;
        int open = 0;
        for (int from = 0; from < ids.size(); from += RUN) {
            List<String> toList = new ArrayList<>();
            Jobs.Run run = store.jobs().run(ids.subList(from, Math.min(ids.size(), from + RUN)));
            for (Map.Entry<String, JobState> e : run.states().entrySet()) {
                if (e.getValue() == JobState.COMPLETED) {
                    if (c++ < listed) {
                        toList.add(e.getKey());
                    }
                } else if (e.getValue() == JobState.FAILED) {
                    if (f++ < listed) {
                        toList.add(e.getKey());
                    }
                } else if (e.getValue() != JobState.DELETED) { // deleted through mrt-zk's Admin Tool: neither
                    open++;
                }
            }
            // a job that moved between the two reads (an operator's requeue) is counted, not listed
            for (Job j : run.load(toList)) { // none to list: no request
                if (j.state() == JobState.COMPLETED) {
                    completed.add(j);
                } else if (j.state() == JobState.FAILED) {
                    failed.add(j);
                }
            }
        }
        return new BatchTally(c, f, open, completed, failed);
    }

    boolean listsAll() {
        return completed.size() == completedCount && failed.size() == failedCount;
    }
}
