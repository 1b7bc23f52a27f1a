package org.cdlib.mrt.ingestqueue.queue.model;

import static org.cdlib.mrt.ingestqueue.testing.QueueTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SortedMap;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.admin.CleanupResult;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every transition of the design's tables is made and leaves a consistent tree; every other move is refused. */
class TransitionTableTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    CuratorFramework client;
    QueueStore store;
    AdminActions admin;
    ConsistencyCheck fsck;
    final Path home = ZK.dir();

    @BeforeEach
    void setUp() throws Exception {
        client = ZK.client();
        store = ZK.store(home);
        admin = new AdminActions(store, Clock.offset(Clock.systemUTC(), Duration.ofDays(30)));
        fsck = new ConsistencyCheck(store);
    }

    @AfterEach
    void tearDown() {
        ConsistencyCheck.Report r = fsck.check();
        assertTrue(r.clean(), () -> "inconsistent: " + r.violations());
    }

    static Stream<Transition<JobState>> jobTransitions() {
        return Transitions.JOB.stream();
    }

    static Stream<Transition<BatchState>> batchTransitions() {
        return Transitions.BATCH.stream();
    }

    /** A new batch with one job, brought to {@code state} through allowed moves. */
    String jobIn(JobState state) {
        String bid = batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        switch (state) {
            case PENDING -> { }
            case HELD -> admin.holdJob(jid, "test");
            case FAILED -> walk(store, jid, JobState.FAILED);
            default -> walk(store, jid, pipelineTo(state));
        }
        assertEquals(state, store.jobs().load(jid).state());
        return jid;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jobTransitions")
    void jobTransition(Transition<JobState> t) throws Exception {
        String jid = jobIn(t.from());
        Job before = store.jobs().load(jid);
        if (t.to() == JobState.DELETED) {
            if (t.by() == Transition.By.ADMIN) {
                admin.deleteJob(jid, true, "test");
            } else {
                reportBatch(before.batchId());
                assertEquals(new CleanupResult(1, 1), admin.cleanup(Duration.ofDays(7)));
            }
            assertTrue(store.jobs().find(jid).isEmpty());
            assertNull(client.checkExists().forPath(QueuePaths.job(jid)));
            return;
        }
        HeldJob lock = store.claims().tryLockJob(jid, "test").orElseThrow();
        Job moved = store.moves()
                .move(
                        lock,
                        t.to(),
                        t.to() == JobState.FAILED ? Change.failure("boom") : Change.because("test"),
                        t.by());
        assertEquals(t.to(), moved.state());
        Job read = store.jobs().load(jid);
        assertEquals(t.to(), read.state());
        assertNull(read.lockOwner(), "the transition releases the lock");
        assertNotNull(client.checkExists().forPath(QueuePaths.jobRef(t.to(), 5, jid)));
        assertNull(client.checkExists().forPath(QueuePaths.jobRef(t.from(), 5, jid)));
        assertNotNull(client.checkExists().forPath(QueuePaths.batchRef(read.batchId(), t.to().batchRef(), jid)));
        if (t.to() == t.from().successor()) { // mrt-zk's meaning: the state a step succeeded in
            assertEquals(t.from(), read.status().lastSuccessful());
        } else {
            assertEquals(before.status().lastSuccessful(), read.status().lastSuccessful());
        }
        assertEquals(before.status().retryCount() + (t.from() == JobState.FAILED ? 1 : 0), read.status().retryCount());
        assertEquals(t.to() == JobState.FAILED ? "boom" : null, read.status().errorMessage());
    }

    void reportBatch(String bid) {
        HeldBatch lock = store.batches().tryLock(bid, "report").orElseThrow();
        boolean failed = !store.batches().jobs(lock.bid(), BatchRef.FAILED).isEmpty();
        store.moves().transition(lock, failed ? BatchState.FAILED : BatchState.COMPLETED, "reported",
                new StatusReport(Instant.now().toString(), store.batches().jobs(lock.bid(), BatchRef.FAILED),
                        store.batches().jobs(lock.bid(), BatchRef.COMPLETED), 1), null);
    }

    @Test
    void everyJobMoveOutsideTheTableIsRefusedAndWritesNothing() throws Exception {
        for (JobState from : JobState.values()) {
            if (from == JobState.DELETED) {
                continue;
            }
            String jid = jobIn(from);
            for (JobState to : JobState.values()) {
                if (to == JobState.DELETED || Transitions.job(from, to).isPresent()) {
                    continue;
                }
                HeldJob lock = store.claims().tryLockJob(jid, "test").orElseThrow();
                SortedMap<String, String> before = tree(client);
                IllegalTransitionException e = assertThrows(IllegalTransitionException.class,
                        () -> store.moves().transition(lock, to, Change.because("test")), from + " -> " + to);
                assertTrue(e.getMessage().contains(from + " to " + to), e.getMessage());
                assertEquals(before, tree(client), from + " -> " + to + " wrote something");
                store.moves().unlock(lock);
            }
        }
    }

    /** A batch brought to {@code state} through allowed moves. */
    String batchIn(BatchState state) {
        String bid;
        switch (state) {
            case PENDING -> bid = store.batches().create(submission("demo_content"));
            case HELD -> {
                bid = store.batches().create(submission("demo_content"));
                admin.holdBatch(bid, "test");
            }
            case PROCESSING -> bid = batchWithJobs(store, 1, 5);
            case REPORTING, COMPLETED -> {
                bid = batchWithJobs(store, 1, 5);
                walk(store, store.batches().jobs(bid, BatchRef.PROCESSING).get(0), pipelineTo(JobState.COMPLETED));
                if (state == BatchState.COMPLETED) {
                    reportBatch(bid);
                }
            }
            case FAILED, UPDATE_REPORTING -> {
                bid = batchWithJobs(store, 1, 5);
                walk(store, store.batches().jobs(bid, BatchRef.PROCESSING).get(0), JobState.FAILED);
                reportBatch(bid);
                if (state == BatchState.UPDATE_REPORTING) {
                    admin.updateReporting(bid, "test");
                }
            }
            default -> throw new IllegalArgumentException(state.toString());
        }
        assertEquals(state, store.batches().load(bid).state());
        return bid;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("batchTransitions")
    void batchTransition(Transition<BatchState> t) throws Exception {
        String bid = batchIn(t.from());
        if (t.to() == BatchState.DELETED) {
            if (t.by() == Transition.By.ADMIN) {
                admin.deleteBatch(bid, "test");
            } else {
                assertEquals(1, admin.cleanup(Duration.ofDays(7)).batches());
            }
            assertNull(client.checkExists().forPath(QueuePaths.batch(bid)));
            assertTrue(store.jobs().counts().values().stream().allMatch(n -> n == 0));
            return;
        }
        if (t.by() == Transition.By.AUTOMATIC) { // processing -> reporting: its last job ends
            walk(store, store.batches().jobs(bid, BatchRef.PROCESSING).get(0), JobState.FAILED);
        } else if (t.to() == BatchState.HELD && t.by() == Transition.By.ADMIN) {
            admin.holdBatch(bid, "test");
        } else if (t.to() == BatchState.UPDATE_REPORTING) {
            admin.updateReporting(bid, "test");
        } else if (t.from() == BatchState.HELD) {
            admin.releaseBatch(bid, "test");
        } else {
            HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
            StatusReport report = t.to() == BatchState.COMPLETED || t.to() == BatchState.FAILED
                    ? new StatusReport(Instant.now().toString(), List.of(), List.of(), 1) : null;
            store.moves().transition(lock, t.to(), "test", report, null);
        }
        Batch b = store.batches().load(bid);
        assertEquals(t.to(), b.state());
        assertNull(b.lockOwner(), "the transition releases the lock");
    }

    @Test
    void everyBatchMoveOutsideTheTableIsRefusedAndWritesNothing() throws Exception {
        for (BatchState from : BatchState.values()) {
            if (from == BatchState.DELETED) {
                continue;
            }
            String bid = batchIn(from);
            for (BatchState to : BatchState.values()) {
                if (Transitions.batch(from, to).isPresent()) {
                    continue;
                }
                HeldBatch lock = store.batches().tryLock(bid, "test").orElseThrow();
                SortedMap<String, String> before = tree(client);
                assertThrows(
                        IllegalTransitionException.class,
                        () -> store.moves().transition(lock, to, "test", null, null),
                        from + " -> " + to);
                assertEquals(before, tree(client), from + " -> " + to + " wrote something");
                store.moves().unlock(lock);
            }
        }
    }
}
