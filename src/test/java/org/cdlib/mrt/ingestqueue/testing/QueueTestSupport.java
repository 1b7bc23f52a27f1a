package org.cdlib.mrt.ingestqueue.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;

/** A real in-process ZooKeeper server and helpers to build batches and jobs in tests. */
public class QueueTestSupport {
    /** The roots of the queue's nodes. */
    private static final List<String> ROOTS = List.of("/batches", "/batch-states", "/batch-numbers",
            "/batch-depositors", "/jobs", "/ids", "/locks");

    /** Only for the old name in {@code queue/}; the helpers are static. */
    protected QueueTestSupport() {
    }

    public static CuratorFramework client(TestingServer server) {
        return client(server, 10_000);
    }

    public static CuratorFramework client(TestingServer server, int sessionTimeoutMs) {
        return client(server.getConnectString(), sessionTimeoutMs);
    }

    /** A started client of {@code connectString} (a server, or a relay in front of one), connected. */
    public static CuratorFramework client(String connectString, int sessionTimeoutMs) {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs(sessionTimeoutMs).connectionTimeoutMs(5_000).retryPolicy(new RetryOneTime(100))
                .build();
        c.start();
        try {
            if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + connectString);
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return c;
    }

    public static BatchSubmission submission(String profile) {
        return new BatchSubmission(profile, "tester", "http://localhost/manifest.checkm", "title", "who", "2026", null,
                "batch-manifest", "add", null, null, null, null, null, null, "json", null,
                Instant.now().toString(), Map.of());
    }

    /**
     * A batch submission of {@code url} as {@code type} (a manifest kind, a file, a container), titled "t" by "w",
     * answered in JSON; every optional field empty.
     */
    public static BatchSubmission submission(String profile, String submitter, String url, String type,
                                             String submitted) {
        return new BatchSubmission(profile, submitter, url, "t", "w", null, null, type, "add", null, null, null, null,
                null, null, "json", null, submitted, null);
    }

    public static NewJob newJob(String localId, int priority) {
        return newJob(localId, priority, "demo_content");
    }

    public static NewJob newJob(String localId, int priority, String profile) {
        JobConfiguration config = new JobConfiguration(null, profile, "tester",
                "http://localhost/" + localId + ".checkm", "object_manifest", "json", "add", null, localId,
                null, null, null, null, "who", "what", "when", null, Map.of());
        return new NewJob(config, new Identifiers(null, List.of(localId)), priority);
    }

    /** A pending batch with n jobs created and the batch moved to processing. */
    public static String batchWithJobs(QueueStore store, int n, int priority) {
        return batchWithJobs(store, n, priority, "demo_content");
    }

    /** The same, of {@code profile}. */
    public static String batchWithJobs(QueueStore store, int n, int priority, String profile) {
        String bid = store.batches().create(submission(profile));
        HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(newJob("loc" + i, priority, profile));
        }
        store.batches().createJobs(lock, jobs);
        store.moves().transition(lock, BatchState.PROCESSING, "jobs created", null, null);
        return bid;
    }

    /** Removes every node of the queue, so a test starts from an empty tree on a shared server. */
    public static void wipe(CuratorFramework client) throws Exception {
        for (String p : ROOTS) {
            if (client.checkExists().forPath(p) != null) {
                client.delete().deletingChildrenIfNeeded().forPath(p);
            }
        }
    }

    /**
     * Walks every job of every pipeline state to completed as workers would, with {@code threads}
     * threads each taking its own slice of a state's references (so they never contend).
     * Returns the number of transitions made.
     */
    public static int walkToCompleted(QueueStore store, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        int transitions = 0;
        try {
            for (JobState s = JobState.PENDING; s != JobState.COMPLETED; s = s.successor()) {
                List<String> refs = store.jobs().refs(s);
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int slice = t;
                    JobState state = s;
                    done.add(pool.submit(() -> {
                        for (int i = slice; i < refs.size(); i += threads) {
                            HeldJob l = store.claims().claim(state, refs.get(i), "walker-" + slice).orElseThrow();
                            store.moves().transition(l, state.successor(), Change.because("walk"));
                        }
                        return null;
                    }));
                }
                for (var f : done) {
                    f.get();
                }
                transitions += refs.size();
            }
        } finally {
            pool.shutdown();
        }
        return transitions;
    }

    public static QueueStore store(CuratorFramework client, Path home) {
        return new QueueStore(client, home).start();
    }

    /** Every node of the queue with its data, to show that a refused action wrote nothing. */
    public static SortedMap<String, String> tree(CuratorFramework client) throws Exception {
        SortedMap<String, String> out = new TreeMap<>();
        for (String root : ROOTS) {
            if (client.checkExists().forPath(root) != null) {
                collect(client, root, out);
            }
        }
        return out;
    }

    private static void collect(CuratorFramework client, String path, SortedMap<String, String> out)
            throws Exception {
        byte[] data = client.getData().forPath(path);
        out.put(path, data == null ? "" : new String(data, StandardCharsets.UTF_8));
        for (String child : client.getChildren().forPath(path)) {
            collect(client, path + "/" + child, out);
        }
    }

    /** Moves a job nobody holds along the given states as a worker would. */
    public static Job walk(QueueStore store, String jid, JobState... states) {
        Job job = null;
        for (JobState to : states) {
            HeldJob lock = store.claims().tryLockJob(jid, "walker").orElseThrow();
            job = to == JobState.FAILED ? store.moves().transition(lock, to, Change.failure("failed on purpose"))
                    : store.moves().transition(lock, to, Change.because("test"));
        }
        return job;
    }

    /** What our workers do: claim the job from its state's folder and move it on, as far as {@code to}. */
    public static void workTo(QueueStore store, String jid, JobState to) {
        for (JobState s = store.jobs().load(jid).state(); s != to; s = s.successor()) {
            HeldJob lock = store.claims().claim(s, store.jobs().load(jid).refName(), "our-worker").orElseThrow(
                    () -> new AssertionError("our worker could not claim " + jid));
            store.moves().transition(lock, s.successor(), Change.because("step succeeded"));
        }
    }

    /**
     * Walks a pending job to notify with every kind of outside effect recorded as the steps record
     * them: a mint that returned {@code minted} and the identifiers {@code ids} written, the EZID
     * update, the storage add and the inventory record of {@code ids}' primary ARK.
     */
    public static void walkToNotifyWithEffects(QueueStore store, String jid, Identifiers ids, String minted) {
        String ark = ids.primaryId();
        for (JobState s = JobState.PENDING; s != JobState.NOTIFY; s = s.successor()) {
            HeldJob lock = store.claims().claim(s, store.jobs().load(jid).refName(), "worker").orElseThrow();
            switch (s) {
                case PROCESSING -> {
                    store.stepWrites().effectStarted(lock, JobEffects.MINT, "demo_content");
                    store.stepWrites().writeMintedIdentifiers(lock, ids, minted);
                    store.stepWrites().effectDone(lock, JobEffects.EZID_UPDATE, ark);
                }
                case STORING -> {
                    store.stepWrites()
                            .storeStarted(lock, "0", "http://localhost/manifest", "add/7777/" + ark, List.of());
                    store.stepWrites().storeDone(lock, "{\"version\":1}", "http://localhost/store/manifest/7777/1");
                }
                case RECORDING -> {
                    store.stepWrites().effectStarted(lock, JobEffects.INVENTORY, "key");
                    store.stepWrites().effectDone(lock, JobEffects.INVENTORY, "key");
                }
                default -> { }
            }
            store.moves().transition(lock, s.successor(), Change.because("step succeeded"));
        }
    }

    /** The pipeline from pending up to and including {@code target}. */
    public static JobState[] pipelineTo(JobState target) {
        List<JobState> path = new ArrayList<>();
        for (JobState s = JobState.PENDING.successor(); s != null; s = s.successor()) {
            path.add(s);
            if (s == target) {
                break;
            }
        }
        return target == JobState.PENDING ? new JobState[0] : path.toArray(JobState[]::new);
    }
}
