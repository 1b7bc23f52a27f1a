package org.cdlib.mrt.ingestqueue.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;

/**
 * A finished job in each shape (issue 42): znodes and bytes it keeps, ZooKeeper operations of the
 * completing move, and of the report's read of it once listed. Each job is walked to notify with an
 * ARK, a local id and the effects the steps record (mint, storage add, inventory, callback).
 * <pre>
 * mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * mvn -B -q test-compile
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     org.cdlib.mrt.ingestqueue.bench.CompletedJobShapeBenchmark [jobs=200]
 * </pre>
 */
public final class CompletedJobShapeBenchmark {
    public static void main(String[] args) throws Exception {
        System.setProperty("jute.maxbuffer", "524288");
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        System.out.printf("machine: %d cores, java %s; %d jobs a shape%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), jobs);
        System.out.println(
                "| shape | znodes per finished job (own + references) | bytes of data per finished job | ZooKeeper ops"
                        + " of the completing move | ops of the report's read of a listed one |");
        System.out.println("|---|---|---|---|---|");
        for (boolean merritt : List.of(true, false)) {
            try (TestingServer server = new TestingServer(true);
                    CuratorFramework client =
                            CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100))) {
                client.start();
                Path dir = BenchDirs.temporary("ingest-completed-shape");
                QueueStore store = new QueueStore(client, dir).start();
                store.jobs().merrittNeighbours(merritt);
                String bid = QueueTestSupport.batchWithJobs(store, jobs, 5);
                List<String> jids = store.batches().jobs(bid, BatchRef.PROCESSING);
                long moveOps = 0;
                for (String jid : jids) {
                    walkToNotify(store, jid);
                    HeldJob lock = store.claims()
                            .claim(JobState.NOTIFY, store.jobs().load(jid).refName(), "worker")
                            .orElseThrow();
                    store.stepWrites().effectDone(lock, JobEffects.CALLBACK, "completed");
                    long before = store.operations();
                    store.moves().transition(lock, JobState.COMPLETED, Change.because("step succeeded"));
                    moveOps += store.operations() - before;
                }
                long znodes = 0;
                long bytes = 0;
                for (String jid : jids) {
                    for (String p : subtree(client, QueuePaths.job(jid))) {
                        znodes++;
                        bytes += client.checkExists().forPath(p).getDataLength();
                    }
                    znodes += 2; // its state reference and its batch reference (no data)
                }
                long before = store.operations();
                store.jobs().run(jids).load(jids);
                long readOps = store.operations() - before;
                System.out.printf("| %s | %.1f (%.1f + 2) | %,d | %.1f | %.1f |%n",
                        merritt ? "beside Merritt (`ingest.merritt.neighbours=true`)" : "compacted (`false`)",
                        (double) znodes / jids.size(), (double) znodes / jids.size() - 2, bytes / jids.size(),
                        (double) moveOps / jids.size(), (double) readOps / jids.size());
                store.close();
            }
        }
    }

    private static void walkToNotify(QueueStore store, String jid) {
        String ark = "ark:/99999/fk4" + jid;
        QueueTestSupport.walkToNotifyWithEffects(store, jid, new Identifiers(ark, List.of("loc-" + jid)), ark);
    }

    private static List<String> subtree(CuratorFramework client, String path) throws Exception {
        List<String> out = new ArrayList<>(List.of(path));
        for (String c : client.getChildren().forPath(path)) {
            out.addAll(subtree(client, path + "/" + c));
        }
        return out;
    }
}
