package org.cdlib.mrt.ingestqueue.steps;

import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.config;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.exchange;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.lockedJob;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompleteStepTest extends StoreTest {
    @Test
    void theWorkingDirectoryIsRemovedAndAMissingOneIsFine(@TempDir Path outside) throws Exception {
        HeldJob lock = lockedJob(store, config("http://example.org/a.txt", "file"), 5);
        Path wd = Path.of(lock.job().configuration().workingDir());
        Files.createDirectories(wd.resolve("producer/dir"));
        Files.createDirectories(wd.resolve("system"));
        Files.writeString(wd.resolve("producer/dir/a.txt"), "a");
        Files.writeString(wd.resolve("system/mrt-erc.txt"), "erc:");
        Path kept = outside.resolve("kept.txt");
        Files.writeString(kept, "not mine");
        Files.createSymbolicLink(wd.resolve("producer/link"), outside);

        new CompleteStep(home).process(exchange(lock));
        assertFalse(Files.exists(wd));
        assertTrue(Files.exists(kept), "a symbolic link is removed, not followed");
        assertTrue(Files.isDirectory(home), "ingest.home stays");

        assertFalse(new CompleteStep(home).remove(wd.toString()), "already gone");
    }

    @Test
    void aDirectoryOutsideIngestHomeIsRefused(@TempDir Path outside) throws Exception {
        Path victim = outside.resolve("data");
        Files.createDirectories(victim);
        CompleteStep step = new CompleteStep(home);
        for (String dir : new String[] {victim.toString(), home.toString(), home.resolve("bid1/../..").toString()}) {
            FetchException e = assertThrows(FetchException.class, () -> step.remove(dir), dir);
            assertTrue(e.getMessage().startsWith("not removing the working directory: working directory " + dir
                    + " is not under ingest.home"), e.getMessage());
        }
        assertTrue(Files.isDirectory(victim));
        assertTrue(Files.isDirectory(home));
    }
}
