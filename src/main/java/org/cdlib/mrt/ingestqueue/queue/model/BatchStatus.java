package org.cdlib.mrt.ingestqueue.queue.model;

import com.fasterxml.jackson.annotation.JsonAlias;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /batches/BID/status}.
 *
 * @param jobsCreated  how many jobs Batch Pending has created so far: a large batch's jobs are
 *                     created in windows, and creation resumes from here after a crash
 * @param message      why the batch could not be turned into jobs, if it could not (mrt-zk's {@code message}: empty
 *                     when there is none)
 * @param firstJob     the number of the first job id of a batch created before {@code jobRuns}: its ids
 *                     are {@code firstJob .. firstJob + jobsTotal - 1}
 * @param jobRuns      the runs of ids reserved for the batch's jobs ({@code [first, count]}, {@link IdBlocks}),
 *                     so its jobs are found by number, never by listing
 * @param jobsTotal    how many jobs the batch will have, once known
 * @param cursor       where Batch Pending goes on reading the submission (a manifest's byte offset)
 */
public record BatchStatus(String status, @JsonAlias("last_modification_date") String lastModified, int jobsCreated,
                          @JsonAlias("error_message") String message,
                          Long firstJob, Integer jobsTotal, Long cursor, List<List<Long>> jobRuns) {

    public BatchStatus {
        status = normal(status);
        message = message == null ? "" : QueueLimits.errorMessage(message);
        jobRuns = jobRuns == null ? List.of() : List.copyOf(jobRuns);
    }

    public BatchStatus(
            String status,
            String lastModified,
            int jobsCreated,
            String message,
            Long firstJob,
            Integer jobsTotal,
            Long cursor) {
        this(status, lastModified, jobsCreated, message, firstJob, jobsTotal, cursor, null);
    }

    public static BatchStatus pending() {
        return new BatchStatus(BatchState.PENDING.zk(), QueueTime.now(), 0, null, null, null, null);
    }

    /** A known state in mrt-zk's spelling; anything else is kept as it is (and named damaged when read). */
    private static String normal(String state) {
        try {
            return state == null ? null : BatchState.fromWire(state).zk();
        } catch (IllegalArgumentException e) {
            return state;
        }
    }

    /** Why the batch could not be made into jobs; null when nothing went wrong. */
    public String errorMessage() {
        return message.isEmpty() ? null : message;
    }

    public BatchState state() {
        return BatchState.fromWire(status);
    }

    /** The same batch in another state; {@code error} null keeps the message it had. */
    public BatchStatus moved(BatchState to, String error) {
        return new BatchStatus(to.zk(), QueueTime.now(), jobsCreated, error != null ? error : message,
                firstJob, jobsTotal, cursor, jobRuns);
    }

    public BatchStatus created(int jobsCreated, int jobsTotal, Long cursor, List<List<Long>> runs) {
        return new BatchStatus(status, QueueTime.now(), jobsCreated, message, firstJob, jobsTotal, cursor, runs);
    }

    /** Ids reserved for the batch's jobs and not yet used. */
    public long idsLeft() {
        long reserved = jobRuns.isEmpty() && firstJob != null ? jobsTotal == null ? jobsCreated : jobsTotal
                : jobRuns.stream().mapToLong(r -> r.get(1)).sum();
        return reserved - jobsCreated;
    }

    /** The runs with {@code block} added (joined to the last when it follows it). */
    public List<List<Long>> withRun(long first, long count) {
        List<List<Long>> runs = new ArrayList<>(jobRuns);
        if (!runs.isEmpty() && runs.get(runs.size() - 1).get(0) + runs.get(runs.size() - 1).get(1) == first) {
            List<Long> last = runs.remove(runs.size() - 1);
            runs.add(List.of(last.get(0), last.get(1) + count));
        } else {
            runs.add(List.of(first, count));
        }
        return runs;
    }

    /**
     * The ids of every job created for the batch, in creation order: the runs of reserved ids
     * ({@code job_runs}), or one run from {@code first_job} for a batch created before runs.
     */
    public List<String> jobIds() {
        List<List<Long>> runs =
                jobRuns.isEmpty() && firstJob != null ? List.of(List.of(firstJob, (long) jobsCreated)) : jobRuns;
        int n = jobsCreated;
        return new AbstractList<>() {
            @Override
            public String get(int i) {
                if (i < 0 || i >= n) {
                    throw new IndexOutOfBoundsException(i);
                }
                long left = i;
                for (List<Long> run : runs) {
                    if (left < run.get(1)) {
                        return QueuePaths.jobId(run.get(0) + left);
                    }
                    left -= run.get(1);
                }
                throw new IndexOutOfBoundsException(i);
            }

            @Override
            public int size() {
                return n;
            }
        };
    }

    /** Whether {@code jid} is one of the jobs created for the batch (by its runs of ids: nothing is read). */
    public boolean holds(String jid) {
        long n = QueuePaths.jobNumber(jid);
        if (n < 0) {
            return false;
        }
        List<List<Long>> runs =
                jobRuns.isEmpty() && firstJob != null ? List.of(List.of(firstJob, (long) jobsCreated)) : jobRuns;
        long left = jobsCreated;
        for (List<Long> run : runs) {
            long count = Math.min(run.get(1), left);
            if (n >= run.get(0) && n < run.get(0) + count) {
                return true;
            }
            left -= count;
        }
        return false;
    }

    /** Whether every job the batch will have exists. */
    public boolean allJobsCreated() {
        return jobsTotal != null && jobsCreated >= jobsTotal;
    }
}
