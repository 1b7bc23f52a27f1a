package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.space.Counters;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.LocalMinter;
import org.cdlib.mrt.ingestqueue.services.OcflStorage;
import org.cdlib.mrt.ingestqueue.services.ServiceException;
import org.cdlib.mrt.ingestqueue.services.Storage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One writer per object: two jobs of one object (two batches naming one local id) never write
 * it at once; the second waits in processing, holding no worker, while the first goes through
 * storing and recording, and makes the next version after it.
 */
class ObjectLockTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();

    /** OCFL storage that fails the test if two versions of one object are written at once. */
    static final class OneWriterStorage implements Storage {
        final OcflStorage inner;
        final Set<String> writing = ConcurrentHashMap.newKeySet();
        final AtomicBoolean overlapped = new AtomicBoolean();
        /** Opened when the other job has had its try: the first writer stays in storage until then. */
        final CountDownLatch otherTried = new CountDownLatch(1);

        OneWriterStorage(Path root) throws Exception {
            inner = new OcflStorage(root);
        }

        @Override
        public String fileUrl(String bid, String jid, Path file, String relativePath) {
            return inner.fileUrl(bid, jid, file, relativePath);
        }

        @Override
        public StoredVersion add(Profile profile, String ark, Path workingDir, String manifest, String localId)
                throws ServiceException, InterruptedException {
            return store(profile, ark, workingDir, manifest, localId, false, List.of(), Map.of());
        }

        @Override
        public StoredVersion store(
                Profile profile,
                String ark,
                Path workingDir,
                String manifest,
                String localId,
                boolean update,
                List<Deletions.Delete> deletes,
                Map<String, String> digests)
                throws ServiceException, InterruptedException {
            if (!writing.add(ark)) {
                overlapped.set(true);
            }
            try {
                otherTried.await(10, TimeUnit.SECONDS); // the first writer is still writing while the other job tries
                return inner.store(profile, ark, workingDir, manifest, localId, update, deletes, digests);
            } finally {
                writing.remove(ark);
            }
        }

        @Override
        public int currentVersion(Profile profile, String ark) throws ServiceException {
            return inner.currentVersion(profile, ark);
        }

        @Override
        public String manifestUrl(Profile profile, String ark) {
            return inner.manifestUrl(profile, ark);
        }

        @Override
        public List<ManifestFile> versionFiles(String ark, int version) throws ServiceException {
            return inner.versionFiles(ark, version);
        }
    }

    HeldJob downloadedJob(QueueStore store, String text) throws Exception {
        HeldJob lock = StepTestSupport.lockedJob(
                store, StepTestSupport.config("http://x/a.txt", "file", "a.txt", null, null, null), 5);
        Path producer = Files.createDirectories(Path.of(lock.job().configuration().workingDir()).resolve("producer"));
        Files.writeString(producer.resolve("a.txt"), text);
        for (JobState to :
                List.of(JobState.ESTIMATING, JobState.PROVISIONING, JobState.DOWNLOADING, JobState.PROCESSING)) {
            store.moves().transition(lock, to, Change.because("test"));
            lock = store.claims().tryLockJob(lock.jid(), "test").orElseThrow();
        }
        return lock;
    }

    @Test
    void twoJobsOfOneLocalIdNeverWriteTheObjectAtOnceAndTheSecondWaitsForTheFirst() throws Exception {
        QueueStore store = ZK.store(dir.resolve("queue"));
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(p.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\n");
        OneWriterStorage storage = new OneWriterStorage(dir.resolve("storage"));
        H2Inventory index = new H2Inventory("jdbc:h2:mem:objlock" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        ServiceRoutes step = new ServiceRoutes(
                store,
                new ProfileDirectory(p),
                ServiceRoutes.config(
                        "ingest.storage.local.root",
                        dir.resolve("storage-addresses").toString()),
                Map.of(
                        "localServices",
                        new LocalServices(
                                new LocalMinter(new Counters(store.client()), "ark:/99999/fk4"),
                                storage,
                                index,
                                index)));
        HeldJob a = downloadedJob(store, "first");
        HeldJob b = downloadedJob(store, "second");

        // both process at once: one takes the object, the other waits for it
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        Future<Exchange> fa = pool.submit(() -> {
            go.await();
            return step.processing(a);
        });
        Future<Exchange> fb = pool.submit(() -> {
            go.await();
            return step.processing(b);
        });
        go.countDown();
        Exchange ea = fa.get();
        Exchange eb = fb.get();
        boolean aWaits = JobExchange.stayReason(ea) != null;
        assertTrue(aWaits ^ JobExchange.stayReason(eb) != null, "exactly one job waits");
        HeldJob first = aWaits ? b : a;
        HeldJob second = aWaits ? a : b;
        assertTrue(JobExchange.stayReason(aWaits ? ea : eb).contains("being written by job " + first.jid()),
                JobExchange.stayReason(aWaits ? ea : eb));
        String ark = store.jobs().load(first.jid()).identifiers().primary();
        assertEquals(ark, store.jobs().load(second.jid()).identifiers().primary(), "one local id, one object");
        store.moves().unlock(second);

        // the first stores: the lock goes with it into storing, and the second still waits while it writes
        store.moves().transition(first, JobState.STORING, Change.because("prepared"));
        assertEquals(first.jid(), holder(ark), "kept from processing into storing");
        HeldJob storing = store.claims().tryLockJob(first.jid(), "test").orElseThrow();
        Future<Exchange> stored = pool.submit(() -> step.storing(storing));
        HeldJob waiting = store.claims().tryLockJob(second.jid(), "test").orElseThrow();
        Exchange meanwhile = step.processing(waiting);
        storage.otherTried.countDown(); // the first writer finishes only after the second has had its try
        assertNull(JobExchange.stayReason(stored.get()), "the first job stores");
        assertTrue(String.valueOf(JobExchange.stayReason(meanwhile)).contains("being written by job " + first.jid()),
                "waits while the first job stores: " + JobExchange.stayReason(meanwhile));
        store.moves().unlock(waiting);
        pool.shutdown();

        store.moves().transition(storing, JobState.RECORDING, Change.because("stored"));
        assertEquals(first.jid(), holder(ark), "kept from storing into recording");
        waiting = store.claims().tryLockJob(second.jid(), "test").orElseThrow();
        assertNotNull(JobExchange.stayReason(step.processing(waiting)), "still waiting while the first job records");
        store.moves().unlock(waiting);

        HeldJob recording = store.claims().tryLockJob(first.jid(), "test").orElseThrow();
        store.moves().transition(recording, JobState.NOTIFY, Change.because("recorded"));
        assertNull(
                ZK.client().checkExists().forPath(QueuePaths.objectLock(ark)),
                "released as the first job left recording");
        HeldJob turn = store.claims().tryLockJob(second.jid(), "test").orElseThrow();
        assertNull(JobExchange.stayReason(step.processing(turn)), "its turn now");
        store.moves().transition(turn, JobState.STORING, Change.because("prepared"));
        step.storing(store.claims().tryLockJob(second.jid(), "test").orElseThrow());
        assertEquals(2, storage.currentVersion(null, ark), "two versions, one after the other");
        assertFalse(storage.overlapped.get(), "no two writes of one object at once");
        step.close();
    }

    /** The job the object's lock names. */
    static String holder(String ark) throws Exception {
        return QueueJson.text(ZK.client().getData().forPath(QueuePaths.objectLock(ark)));
    }
}
