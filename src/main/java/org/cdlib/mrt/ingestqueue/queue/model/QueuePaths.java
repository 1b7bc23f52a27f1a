package org.cdlib.mrt.ingestqueue.queue.model;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;

/** The znode layout of the design, in one place. */
public final class QueuePaths {
    public static final String ACTIVITY = "/activity";
    public static final String SESSIONS = "/sessions";
    public static final String HOSTS = "/hosts";
    public static final String BATCHES = "/batches";
    public static final String JOBS = "/jobs";
    public static final String JOB_STATES = "/jobs/states";
    public static final String IDS = "/ids";
    public static final String BATCH_COUNTER = "/ids/batch";
    public static final String JOB_COUNTER = "/ids/job";
    public static final String COLLECTION_HOLDS = "/locks/collections";
    public static final String QUEUE_HOLD = "/locks/queue/ingest";
    /**
     * Batches an operator held while their jobs run (issue 45): {@code /locks/batches/BID}, ours alone (mrt-zk
     * looks at no such node). The batch's status stays as it is; its jobs stop as a worker would take them.
     */
    public static final String BATCH_HOLDS = "/locks/batches";
    /**
     * Released batch holds whose held jobs are still to be released ({@code /locks/batch-releases/BID}): created
     * by the multi that deletes the hold, deleted by the pass that released the last of them.
     */
    public static final String BATCH_RELEASES = "/locks/batch-releases";
    /**
     * The batches by state: {@code /batch-states/<state>/BID}, written with the batch's status. Not
     * under {@code /batches}: mrt-zk takes every child of {@code /batches} for a batch.
     */
    public static final String BATCH_STATES = "/batch-states";
    /** Where this queue kept that index before it shared its ensemble with mrt-zk ({@code layout.WireMigration}). */
    public static final String OLD_BATCH_STATES = "/batches/states";
    /** The lowest batch number that may still exist: where walks over all batches start. */
    public static final String OLDEST_BATCH = "/ids/oldest-batch";
    /**
     * Bytes ever admitted into downloading and ever released from it: their difference is what the
     * jobs in downloading have reserved on the working disk, what provisioning admits against.
     */
    public static final String SPACE_ADMITTED = "/ids/space-admitted";
    public static final String SPACE_RELEASED = "/ids/space-released";
    /** One ephemeral node per session that writes the space counters ({@link SpaceCounters}). */
    public static final String SPACE_CHAIN = "/ids/space-chain";

    /**
     * The batches that exist, by number: {@code /batch-numbers/<bucket>/BID}, bucket the number
     * divided by {@link #NUMBER_BUCKET}. Written with the batch's creation and removal, and healed
     * by the intake for batches other writers create; lists walk it newest bucket first, so they
     * never read numbers that were never batches. Not under {@code /batches}: mrt-zk takes every
     * child of {@code /batches} for a batch.
     */
    public static final String BATCH_NUMBERS = "/batch-numbers";
    /** Numbers per bucket of {@link #BATCH_NUMBERS}: a bucket holds at most this many entries, listed at once. */
    public static final long NUMBER_BUCKET = 1000;
    /**
     * Each depositor's open batches: {@code /batch-depositors/<depositor>/BID}, what
     * {@code ingest.queue.max-open-batches-per-depositor} counts ({@code Stat}), written in the
     * batch's creation transaction and removed in the one that moves it out of the open states.
     */
    public static final String BATCH_DEPOSITORS = "/batch-depositors";
    /**
     * The intake's cursor: every batch number below it was looked at once by the intake
     * ({@code MerrittBatches}), and its batch, if any, put in {@link #BATCH_NUMBERS}. Shared by the hosts.
     */
    public static final String BATCH_INTAKE = "/ids/batch-intake";

    /** mrt-zk's index of batches by the Merritt batch id ({@code bid-<uuid>}): each node holds the BID. */
    public static final String BATCH_UUIDS = "/batch-uuids";

    private QueuePaths() {
    }

    public static String batchUuid(String uuid) {
        return BATCH_UUIDS + "/" + uuid;
    }

    public static String numberBucket(long bucket) {
        String digits = Long.toString(bucket); // seven digits: buckets of numbers up to 2^32
        return BATCH_NUMBERS + "/" + "0000000".substring(Math.min(7, digits.length())) + digits;
    }

    /** The bucket of a batch number ({@link #BATCH_NUMBERS}). */
    public static long bucketOf(long number) {
        return number / NUMBER_BUCKET;
    }

    public static String batchNumberEntry(String bid) {
        return numberBucket(bucketOf(batchNumber(bid))) + "/" + bid;
    }

    /** A depositor's folder of open batches; {@code depositor} is a node name ({@code BatchDepositors#name}). */
    public static String depositorBatches(String depositor) {
        return BATCH_DEPOSITORS + "/" + depositor;
    }

    public static String depositorBatch(String depositor, String bid) {
        return depositorBatches(depositor) + "/" + bid;
    }

    public static String batch(String bid) {
        return BATCHES + "/" + bid;
    }

    public static String batchSubmission(String bid) {
        return batch(bid) + "/submission";
    }

    public static String batchStatus(String bid) {
        return batch(bid) + "/status";
    }

    public static String batchStatusReport(String bid) {
        return batch(bid) + "/status-report";
    }

    public static String batchLock(String bid) {
        return batch(bid) + "/lock";
    }

    public static String batchStates(String bid) {
        return batch(bid) + "/states";
    }

    public static String batchRefs(String bid, BatchRef ref) {
        return batchStates(bid) + "/" + ref.node();
    }

    public static String batchRef(String bid, BatchRef ref, String jid) {
        return batchRefs(bid, ref) + "/" + jid;
    }

    public static String batchIndex(BatchState state) {
        return BATCH_STATES + "/" + state.wire();
    }

    public static String batchIndex(BatchState state, String bid) {
        return batchIndex(state) + "/" + bid;
    }

    /** The number of a batch id {@code bid0000000042}; -1 when it is not one. */
    public static long batchNumber(String bid) {
        return bid != null && bid.matches("bid\\d{10}") ? Long.parseLong(bid.substring(3)) : -1;
    }

    public static long jobNumber(String jid) {
        return jid != null && jid.matches("jid\\d{10}") ? Long.parseLong(jid.substring(3)) : -1;
    }

    public static String job(String jid) {
        return JOBS + "/" + jid;
    }

    public static String jobNode(String jid, String child) {
        return job(jid) + "/" + child;
    }

    public static String jobLock(String jid) {
        return jobNode(jid, "lock");
    }

    public static String jobStatus(String jid) {
        return jobNode(jid, "status");
    }

    public static String jobState(JobState state) {
        return JOB_STATES + "/" + state.wire();
    }

    public static String jobRef(JobState state, int priority, String jid) {
        return jobState(state) + "/" + refName(priority, jid);
    }

    public static String refName(int priority, String jid) {
        // built by hand: this runs several times per transition, and String.format costs more than the rest of it
        return (priority >= 0 && priority < 10 ? "0" : "") + priority + "-" + jid;
    }

    /** The job id of a reference name {@code PP-JID}. */
    public static String jidOfRef(String refName) {
        int dash = refName.indexOf('-');
        return dash < 0 ? refName : refName.substring(dash + 1);
    }

    /** The priority of a reference name, or -1 when the name is not {@code PP-JID}. */
    public static int priorityOfRef(String refName) {
        if (refName.length() < 4 || refName.charAt(2) != '-') {
            return -1;
        }
        try {
            return Integer.parseInt(refName.substring(0, 2));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** One writer per object: {@code /locks/objects/<url-encoded ARK>}, naming the job that holds it. */
    public static final String OBJECT_LOCKS = "/locks/objects";

    public static String objectLock(String ark) {
        return OBJECT_LOCKS + "/" + URLEncoder.encode(ark, StandardCharsets.UTF_8);
    }

    public static String batchHold(String bid) {
        return BATCH_HOLDS + "/" + bid;
    }

    public static String batchRelease(String bid) {
        return BATCH_RELEASES + "/" + bid;
    }

    public static String collectionHold(String profile) {
        return COLLECTION_HOLDS + "/" + profile;
    }

    public static String batchId(long n) {
        return numbered("bid", n);
    }

    /** {@code prefix} and ten digits, zero-padded (made on every transition: String.format cost more than the rest). */
    private static String numbered(String prefix, long n) {
        String digits = Long.toString(n);
        return digits.length() >= 10 || n < 0
                ? prefix + digits
                : prefix + "0000000000".substring(digits.length()) + digits;
    }

    public static String jobId(long n) {
        return numbered("jid", n);
    }

    public static int checkPriority(int priority) {
        if (priority < 0 || priority > 99) {
            throw new IllegalArgumentException("priority must be 00-99, got " + priority);
        }
        return priority;
    }

    /** A priority read from a node: out of range is corruption, not a caller error. */
    public static int checkPriorityNode(String path, int priority) {
        if (priority < 0 || priority > 99) {
            throw new CorruptNodeException(path, "priority " + priority + " is not 00-99");
        }
        return priority;
    }
}
