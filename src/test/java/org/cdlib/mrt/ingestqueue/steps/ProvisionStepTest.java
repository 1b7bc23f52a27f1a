package org.cdlib.mrt.ingestqueue.steps;

import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.config;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.exchange;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.lockedJob;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.queue.StoreTest;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
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
    JobLock jobIn(JobState to, long spaceNeeded) {
        JobLock lock = lockedJob(store, config("http://example.org/a.txt", "file"), 5);
        store.unlock(lock);
        JobState s = JobState.PENDING;
        while (s != to) {
            JobLock l = store.claims().claim(s, store.jobs().load(lock.jid()).refName(), "t").orElseThrow();
            store.transition(l, s.successor(), Change.because("test").withSpaceNeeded(spaceNeeded));
            s = s.successor();
        }
        return store.claims().claim(to, store.jobs().load(lock.jid()).refName(), "t").orElseThrow();
    }

    @Test
    void aJobStaysWhileTheDiskWouldBeTooFullAndGoesOnWhenSpaceFrees() {
        JobLock downloading = jobIn(JobState.DOWNLOADING, 200);
        store.unlock(downloading);
        JobLock job = jobIn(JobState.PROVISIONING, 300);
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
        store.transition(job, JobState.DOWNLOADING, JobExchange.change(again));
        assertEquals(JobState.DOWNLOADING, store.jobs().load(job.jid()).state());
    }

    @Test
    void anUnestimatedJobWaitsWhileTheDiskIsOverTheThreshold() {
        JobLock job = jobIn(JobState.PROVISIONING, 0);
        ProvisionStep step = new ProvisionStep(store, disk, 80);
        usable.set(150);
        Exchange ex = exchange(job);
        step.process(ex);
        assertTrue(JobExchange.stayReason(ex).startsWith("needs 0 bytes; 850 of 1000 bytes used"), JobExchange.stayReason(ex));
        usable.set(900);
        Exchange again = exchange(job);
        step.process(again);
        assertNull(JobExchange.stayReason(again));
    }

    @Test
    void aJobLargerThanTheFilesystemCanEverHoldFailsNamingTheLimit() {
        JobLock job = jobIn(JobState.PROVISIONING, 100_000_000_000_000L); // a manifest claiming 100 TB
        usable.set(1_000); // even on an empty disk
        Exchange ex = exchange(job);
        new ProvisionStep(store, disk, 80).process(ex);
        assertNull(JobExchange.stayReason(ex), "it does not wait in provisioning");
        assertEquals("the object is estimated at 100000000000000 bytes, more than the working filesystem can ever hold: "
                + "at most 800 bytes (80% of 1000, ingest.provisioning.max-used-percent)", JobExchange.failure(ex));
    }

    @Test
    void anUnreadableDiskKeepsTheJobWaiting() {
        JobLock job = jobIn(JobState.PROVISIONING, 10);
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
    void aThresholdOutsideOneToHundredIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ProvisionStep(store, disk, 0));
        assertTrue(e.getMessage().contains("ingest.provisioning.max-used-percent"), e.getMessage());
    }
}
