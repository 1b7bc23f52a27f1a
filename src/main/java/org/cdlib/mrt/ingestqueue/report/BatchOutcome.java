package org.cdlib.mrt.ingestqueue.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.Batch;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobState;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * What a batch's jobs came to, read by walking the batch's run of job ids in bounded reads:
 * whole counts, and the jobs themselves up to {@link #LISTED} of each kind (what a report mail
 * can carry), so a million-job batch is reported in bounded memory.
 */
record BatchOutcome(int completedCount, int failedCount, int openCount, List<Job> completed, List<Job> failed) {
    static final int LISTED = 10_000;

    static BatchOutcome of(QueueStore store, Batch batch) {
        return of(store, batch, LISTED);
    }

    /**
     * Until a list is full its jobs are read whole (8 nodes each); after that each job's status
     * node alone says what it came to, and only a job still to be listed is read whole.
     */
    static BatchOutcome of(QueueStore store, Batch batch, int listed) {
        List<String> ids = batch.jobIds();
        List<Job> completed = new ArrayList<>();
        List<Job> failed = new ArrayList<>();
        int c = 0;
        int f = 0;
        int open = 0;
        for (int from = 0; from < ids.size(); from += 100) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + 100));
            List<Job> jobs;
            if (c < listed && f < listed) {
                jobs = store.loadJobs(chunk);
            } else {
                List<String> toList = new ArrayList<>();
                for (Map.Entry<String, JobState> e : store.statesOf(chunk).entrySet()) {
                    boolean wanted = e.getValue() == JobState.COMPLETED ? c < listed : e.getValue() == JobState.FAILED && f < listed;
                    if (wanted) {
                        toList.add(e.getKey());
                    } else if (e.getValue() == JobState.COMPLETED) {
                        c++;
                    } else if (e.getValue() == JobState.FAILED) {
                        f++;
                    } else {
                        open++;
                    }
                }
                jobs = toList.isEmpty() ? List.of() : store.loadJobs(toList);
            }
            for (Job j : jobs) {
                if (j.state() == JobState.COMPLETED) {
                    if (c++ < listed) {
                        completed.add(j);
                    }
                } else if (j.state() == JobState.FAILED) {
                    if (f++ < listed) {
                        failed.add(j);
                    }
                } else {
                    open++;
                }
            }
        }
        return new BatchOutcome(c, f, open, completed, failed);
    }

    boolean listsAll() {
        return completed.size() == completedCount && failed.size() == failedCount;
    }
}
