package org.cdlib.mrt.ingestqueue.steps;

import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.config;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.exchange;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.lockedJob;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.space.SpaceReservation;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.Test;

class ProvisionStepTest extends StoreTest {
    /** A 1000-byte disk whose usable space the test sets. */
    final AtomicLong usable = new AtomicLong();
    final FreeSpace disk = new FreeSpace() {
        @Override
        public long usableBytes() {
            return usable.get();
        }

        @Override
        public long totalBytes() {
            return 1_000;
        }
    };

    /** A job walked to {@code to}, its estimate written on the way. */
    HeldJob jobIn(JobState to, long spaceNeeded) {
        HeldJob lock = lockedJob(store, config("http://example.org/a.txt", "file"), 5);
        store.moves().unlock(lock);
        JobState s = JobState.PENDING;
        while (s != to) {
            HeldJob l = store.claims().claim(s, store.jobs().load(lock.jid()).refName(), "t").orElseThrow();
            store.moves().transition(l, s.successor(), Change.because("test").withSpaceNeeded(spaceNeeded));
            s = s.successor();
        }
        return store.claims().claim(to, store.jobs().load(lock.jid()).refName(), "t").orElseThrow();
    }

    @Test
    void aJobStaysWhileTheDiskWouldBeTooFullAndGoesOnWhenSpaceFrees() {
        HeldJob downloading = jobIn(JobState.DOWNLOADING, 200);
        store.moves().unlock(downloading);
        HeldJob job = jobIn(JobState.PROVISIONING, 300);
        ProvisionStep step = new ProvisionStep(store, disk, 80);

        usable.set(600); // 400 used + 200 reserved + 300 needed = 900 > 800
        Exchange ex = exchange(job);
        step.process(ex);
        assertEquals("needs 300 bytes; 400 of 1000 bytes used, 200 reserved by 1 downloading job(s): "
                + "90.0% used after this job, above the limit of 80%", JobExchange.stayReason(ex));

        usable.set(700); // 300 + 200 + 300 = 800: exactly at the limit
        Exchange again = exchange(job);
        step.process(again);
        assertNull(JobExchange.stayReason(again));
        store.moves().transition(job, JobState.DOWNLOADING, JobExchange.change(again));
        assertEquals(JobState.DOWNLOADING, store.jobs().load(job.jid()).state());
    }

    /**
     * The first look is made on the counts this process's own moves left, with no read; another
     * host's reservation since makes that look wrong, and then the move is refused (the counter's
     * version moved), and the next look, on the counts as read, keeps the job waiting.
     */
    @Test
    void theFirstLookUsesThisProcesssOwnCountsAndTheMoveChecksThem() throws Exception {
        usable.set(1_000);
        ProvisionStep step = new ProvisionStep(store, disk, 80);
        HeldJob first = jobIn(JobState.PROVISIONING, 300);
        Exchange ex = exchange(first);
        step.process(ex);
        // this process now knows the counts
        store.moves().transition(first, JobState.DOWNLOADING, JobExchange.change(ex));

        HeldJob second = jobIn(JobState.PROVISIONING, 300);
        long before = store.operations();
        Exchange look = exchange(second);
        step.process(look);
        assertNull(JobExchange.stayReason(look));
        assertEquals(0, store.operations() - before, "no read: 300 reserved by this process's own move");

        HeldJob third = jobIn(JobState.PROVISIONING, 300);
        store.moves().unlock(third);
        try (var otherClient = QueueTestSupport.client(ZK.server())) { // another host
            QueueStore other = QueueTestSupport.store(otherClient, home);
            HeldJob elsewhere = other.claims()
                    .claim(JobState.PROVISIONING, other.jobs().load(third.jid()).refName(), "other")
                    .orElseThrow();
            Exchange theirs = exchange(elsewhere);
            new ProvisionStep(other, disk, 80).process(theirs);
            // 600 reserved now, 300 unseen here
            other.moves().transition(elsewhere, JobState.DOWNLOADING, JobExchange.change(theirs));
        }
        Exchange stale = exchange(second);
        step.process(stale);
        assertNull(JobExchange.stayReason(stale), "this process's counts still say 300");
        HeldJob held = second;
        assertThrows(
                SpaceReservation.Conflict.class,
                () -> store.moves().transition(held, JobState.DOWNLOADING, JobExchange.change(stale)),
                "600 + 300 > 800: the move checks the counts as they are");
        store.moves().unlock(held);
        HeldJob again = store.claims()
                .claim(JobState.PROVISIONING, store.jobs().load(second.jid()).refName(), "t")
                .orElseThrow();
        Exchange fresh = exchange(again);
        step.process(fresh);
        assertTrue(
                JobExchange.stayReason(fresh).contains("600 reserved by 2 downloading job(s)"),
                JobExchange.stayReason(fresh));
        assertEquals(JobState.PROVISIONING, store.jobs().load(second.jid()).state());
    }

    @Test
    void anUnestimatedJobWaitsWhileTheDiskIsOverTheThreshold() {
        HeldJob job = jobIn(JobState.PROVISIONING, 0);
        ProvisionStep step = new ProvisionStep(store, disk, 80);
        usable.set(150);
        Exchange ex = exchange(job);
        step.process(ex);
        assertTrue(
                JobExchange.stayReason(ex).startsWith("needs 0 bytes; 850 of 1000 bytes used"),
                JobExchange.stayReason(ex));
        usable.set(900);
        Exchange again = exchange(job);
        step.process(again);
        assertNull(JobExchange.stayReason(again));
    }

    @Test
    void aJobLargerThanTheFilesystemCanEverHoldFailsNamingTheLimit() {
        HeldJob job = jobIn(JobState.PROVISIONING, 100_000_000_000_000L); // a manifest claiming 100 TB
        usable.set(1_000); // even on an empty disk
        Exchange ex = exchange(job);
        new ProvisionStep(store, disk, 80).process(ex);
        assertNull(JobExchange.stayReason(ex), "it does not wait in provisioning");
        assertEquals(
                "the object is estimated at 100000000000000 bytes, more than the working filesystem can ever hold: "
                        + "at most 800 bytes (80% of 1000, ingest.provisioning.max-used-percent)",
                JobExchange.failure(ex));
    }

    /**
     * Where storage's copy lands on the same filesystem, an object takes its bytes twice: this job's
     * and the downloading jobs' reservations count double, and the move admits on the same figure.
     */
    @Test
    void withStoragesCopyOnTheSameDiskAnObjectIsReservedTwice() {
        HeldJob downloading = jobIn(JobState.DOWNLOADING, 100);
        store.moves().unlock(downloading);
        HeldJob job = jobIn(JobState.PROVISIONING, 250);
        ProvisionStep step = new ProvisionStep(store, disk, 80, 2, null);

        usable.set(900); // 100 used + 2 x (100 reserved + 250 needed) = 800: exactly at the limit
        Exchange fits = exchange(job);
        step.process(fits);
        assertNull(JobExchange.stayReason(fits), "it fits twice");

        usable.set(899); // one byte more used: it would not fit with storage's copy (it would without)
        Exchange waits = exchange(job);
        step.process(waits);
        assertEquals("needs 500 bytes (250 and storage's copy); 101 of 1000 bytes used, 200 reserved by 1 "
                + "downloading job(s): 80.1% used after this job, above the limit of 80%",
                JobExchange.stayReason(waits));
        Exchange once = exchange(job);
        new ProvisionStep(store, disk, 80, 1, null).process(once);
        assertNull(JobExchange.stayReason(once));

        usable.set(900);
        Exchange again = exchange(job);
        step.process(again);
        store.moves().transition(job, JobState.DOWNLOADING, JobExchange.change(again));
        assertEquals(JobState.DOWNLOADING, store.jobs().load(job.jid()).state(), "the move admits on the same sum");
    }

    /**
     * A job waiting for room shows the numbers in its status message, rounded: a retry that finds the disk as it was
     * writes nothing, one that finds it changed writes once, and the move that admits it clears the message.
     */
    @Test
    void aWaitingJobShowsTheNumbersWrittenOnlyWhenTheyChangeAndTheMoveOnClearsThem() {
        HeldJob job = jobIn(JobState.PROVISIONING, 300);
        ProvisionStep step = new ProvisionStep(store, disk, 80, 2, store.stepWrites());
        usable.set(500); // 500 used + 2 x 300 needed = 1100 > 800
        step.process(exchange(job));
        var shown = store.jobs().load(job.jid());
        assertEquals("waits for room on the working disk: needs 600 bytes (with storage's copy); 500 bytes of 1.00 KB "
                + "used, 80% at most (ingest.provisioning.max-used-percent)", shown.status().message());
        for (int i = 0; i < 3; i++) {
            step.process(exchange(job));
        }
        assertEquals(shown.statusVersion(), store.jobs().load(job.jid()).statusVersion(), "the same numbers: no write");
        usable.set(450);
        step.process(exchange(job));
        assertEquals(shown.statusVersion() + 1, store.jobs().load(job.jid()).statusVersion(), "new numbers: one write");
        assertTrue(store.jobs().load(job.jid()).status().message().contains("550 bytes of 1.00 KB used"));

        usable.set(1_000);
        Exchange admitted = exchange(job);
        step.process(admitted);
        assertNull(JobExchange.stayReason(admitted));
        store.moves().transition(job, JobState.DOWNLOADING, JobExchange.change(admitted));
        assertEquals("", store.jobs().load(job.jid()).status().message(), "the move on clears what it waited for");
    }

    @Test
    void anObjectThatFitsOnceButNeverTwiceFailsNamingBothFigures() {
        HeldJob job = jobIn(JobState.PROVISIONING, 500);
        usable.set(1_000);
        Exchange ex = exchange(job);
        new ProvisionStep(store, disk, 80, 2, null).process(ex);
        assertEquals("the object is estimated at 500 bytes, 1000 with storage's copy on the same filesystem, more "
                + "than the working filesystem can ever hold: at most 800 bytes (80% of 1000, "
                + "ingest.provisioning.max-used-percent)", JobExchange.failure(ex));
    }

    @Test
    void twoDirectoriesOfOneDiskShareItsFilesystem() throws IOException {
        assertTrue(FreeSpace.sameFileSystem(home.resolve("storage/not/yet"), home));
    }

    @Test
    void anUnreadableDiskKeepsTheJobWaiting() {
        HeldJob job = jobIn(JobState.PROVISIONING, 10);
        FreeSpace broken = new FreeSpace() {
            @Override
            public long usableBytes() throws IOException {
                throw new IOException("stale file handle");
            }

            @Override
            public long totalBytes() throws IOException {
                throw new IOException("stale file handle");
            }
        };
        Exchange ex = exchange(job);
        new ProvisionStep(store, broken, 80).process(ex);
        assertTrue(JobExchange.stayReason(ex).contains("stale file handle"), JobExchange.stayReason(ex));
    }

    @Test
    void theRealFilesystemOfIngestHomeIsRead() throws IOException {
        FreeSpace real = FreeSpace.of(home.resolve("not/yet/created"));
        assertTrue(real.totalBytes() > 0);
        assertTrue(real.usableBytes() <= real.totalBytes());
    }

    @Test
    void theFilesystemIsFoundBeforeAndAfterTheDirectoryIsCreated() throws IOException {
        Path dir = home.resolve("later/made");
        FreeSpace real = FreeSpace.of(dir);
        long before = real.totalBytes();
        Files.createDirectories(dir);
        assertEquals(Files.getFileStore(dir).getTotalSpace(), real.totalBytes());
        assertEquals(before, real.totalBytes());
        Files.delete(dir);
        assertTrue(real.usableBytes() > 0, "once its directory is gone, the nearest parent answers");
    }

    @Test
    void aThresholdOutsideOneToHundredIsRefused() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new ProvisionStep(store, disk, 0));
        assertTrue(e.getMessage().contains("ingest.provisioning.max-used-percent"), e.getMessage());
    }
}
