package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fenced provisioning on a real ZooKeeper: two stores (two sessions, as two hosts) with four
 * admitting threads each race over 60 jobs of 1,000 bytes for a 10,000-byte disk. Exactly ten
 * are admitted, the reservation says 10,000, and it goes back to 0 as they leave downloading.
 */
class ConcurrentAdmissionTest {
    static final long TOTAL = 10_000;
    static final FreeSpace EMPTY_DISK = new FreeSpace() {
        @Override
        public long usableBytes() {
            return TOTAL;
        }

        @Override
        public long totalBytes() {
            return TOTAL;
        }
    };

    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().freshServerEachTest();
    final List<CuratorFramework> clients = new ArrayList<>();
    final Path home = ZK.dir();

    @AfterEach
    void stop() throws Exception {
        clients.forEach(CuratorFramework::close);
    }

    QueueStore store() {
        CuratorFramework c = QueueTestSupport.client(ZK.server());
        clients.add(c);
        return QueueTestSupport.store(c, home);
    }

    @Test
    void concurrentAdmissionsOnTwoHostsNeverPassTheThreshold() throws Exception {
        QueueStore a = store();
        QueueStore b = store();
        String bid = QueueTestSupport.batchWithJobs(a, 60, 5);
        for (String jid : a.batches().load(bid).jobIds()) {
            HeldJob l = a.claims().claim(JobState.PENDING, a.jobs().load(jid).refName(), "t").orElseThrow();
            a.moves().transition(l, JobState.ESTIMATING, Change.because("test"));
            l = a.claims().claim(JobState.ESTIMATING, a.jobs().load(jid).refName(), "t").orElseThrow();
            a.moves().transition(l, JobState.PROVISIONING, Change.because("estimated").withSpaceNeeded(1_000));
        }
        AtomicInteger conflicts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Integer>> admitted = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            QueueStore store = t % 2 == 0 ? a : b;
            ProvisionStep step = new ProvisionStep(store, EMPTY_DISK, 100);
            admitted.add(pool.submit(() -> admitUntilFull(store, step, conflicts)));
        }
        int total = 0;
        for (Future<Integer> f : admitted) {
            total += f.get(2, TimeUnit.MINUTES);
        }
        pool.shutdown();
        System.out.printf("admitted %d, version conflicts decided again: %d%n", total, conflicts.get());
        assertEquals(10, total);
        assertEquals(10, a.jobs().count(JobState.DOWNLOADING));
        assertEquals(50, b.jobs().count(JobState.PROVISIONING));
        assertEquals(TOTAL, b.jobs().spaceReserved().bytes());

        for (String ref : a.jobs().refs(JobState.DOWNLOADING)) {
            HeldJob l = a.claims().claim(JobState.DOWNLOADING, ref, "t").orElseThrow();
            a.moves()
                    .transition(
                            l, ref.hashCode() % 2 == 0 ? JobState.PROCESSING : JobState.FAILED, Change.because("done"));
        }
        assertEquals(0, a.jobs().spaceReserved().bytes());
    }

    /** One admitting worker: takes jobs in provisioning until a whole pass admits nothing; how many it admitted. */
    private static int admitUntilFull(QueueStore store, ProvisionStep step, AtomicInteger conflicts) {
        int admitted = 0;
        boolean progress = true;
        while (progress) {
            progress = false;
            for (String ref : store.jobs().refs(JobState.PROVISIONING)) {
                HeldJob lock = store.claims().claim(JobState.PROVISIONING, ref, "admit").orElse(null);
                if (lock == null) {
                    progress = true; // another worker is deciding it: look again
                    continue;
                }
                Exchange ex = StepTestSupport.exchange(lock);
                step.process(ex);
                if (JobExchange.stayReason(ex) != null) {
                    store.moves().unlock(lock);
                    continue;
                }
                try {
                    store.moves().transition(lock, JobState.DOWNLOADING, JobExchange.change(ex));
                    admitted++;
                } catch (SpaceReservation.Conflict e) {
                    conflicts.incrementAndGet();
                    store.moves().unlock(lock);
                }
                progress = true;
            }
        }
        return admitted;
    }
}
