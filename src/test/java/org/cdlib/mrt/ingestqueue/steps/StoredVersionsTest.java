package org.cdlib.mrt.ingestqueue.steps;

import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.config;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.lockedJob;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.Test;

/** Where the report finds what storage made of a job that did not complete (no summary to read it from). */
class StoredVersionsTest extends StoreTest {

    @Test
    void aJobThatFailedAfterStoringIsReadFromItsEffectsAnOlderOneFromItsFileAndOneNeverStoredHasNone()
            throws Exception {
        StoredVersion v = new StoredVersion(
                "ark:/99999/fk4sv1", 2, "http://storage/manifest/ark", "update", List.of("producer/a.txt"));
        HeldJob stored = lockedJob(store, config("http://example.org/a.txt", "file"), 5);
        store.stepWrites()
                .storeStarted(
                        stored,
                        "ark:/99999/fk4sv1 v1",
                        "http://host/files/m",
                        "update/9001/ark",
                        List.of("producer/a.txt"));
        store.stepWrites().storeDone(stored, new String(QueueJson.write(v), StandardCharsets.UTF_8), v.manifestUrl());
        store.moves().transition(stored, JobState.FAILED, Change.failure("inventory refused the version"));

        HeldJob older = lockedJob(store, config("http://example.org/b.txt", "file"), 5);
        store.moves().transition(older, JobState.FAILED, Change.failure("inventory refused the version"));
        StoredVersion fromFile = new StoredVersion("ark:/99999/fk4sv2", 1, "http://storage/manifest/ark2");
        Path file = home.resolve(".versions").resolve(older.job().batchId()).resolve(older.jid() + ".json");
        Files.createDirectories(file.getParent());
        Files.write(file, QueueJson.write(fromFile));

        HeldJob never = lockedJob(store, config("http://example.org/c.txt", "file"), 5);
        store.moves().transition(never, JobState.FAILED, Change.failure("download refused"));

        assertEquals(v, StoredVersions.of(store.jobs().load(stored.jid()), store, home));
        assertEquals(fromFile, StoredVersions.of(store.jobs().load(older.jid()), store, home));
        assertNull(StoredVersions.of(store.jobs().load(never.jid()), store, home));

        // a report's listed jobs at once (their effects read together), with a completed one read from its summary
        HeldJob completed = lockedJob(store, config("http://example.org/d.txt", "file"), 5);
        StoredVersion w = new StoredVersion("ark:/99999/fk4sv5", 1, "http://storage/manifest/ark5");
        store.stepWrites()
                .storeStarted(completed, "ark:/99999/fk4sv5 v0", "http://host/files/m", "add/9001/ark", List.of());
        store.stepWrites()
                .storeDone(completed, new String(QueueJson.write(w), StandardCharsets.UTF_8), w.manifestUrl());
        HeldJob walking = completed;
        for (JobState to : List.of(
                JobState.ESTIMATING,
                JobState.PROVISIONING,
                JobState.DOWNLOADING,
                JobState.PROCESSING,
                JobState.STORING,
                JobState.RECORDING,
                JobState.NOTIFY)) {
            walking = store.moves().transitionAndKeep(walking, to, Change.because("on"), "worker-" + to.wire());
        }
        store.moves().transition(walking, JobState.COMPLETED, Change.because("done"));
        assertTrue(
                store.jobs().load(completed.jid()).status().summary() == null,
                "Merritt's shape: read from its effects node");
        List<Job> listed = Stream.of(stored, older, never, completed)
                .map(l -> store.jobs().load(l.jid())).toList();
        assertEquals(Map.of(stored.jid(), v, older.jid(), fromFile, completed.jid(), w),
                StoredVersions.of(listed, store, home));
    }

    @Test
    void anAddRecordedAsDoneThatDoesNotReadAsAnAnswerIsNeverTakenForNoAdd() {
        HeldJob lock = lockedJob(store, config("http://example.org/a.txt", "file"), 5);
        store.stepWrites().effectDone(lock, JobEffects.STORAGE, "ark:/99999/fk4sv4 v1");
        // storing and recording stop on it (storing would otherwise send the add again)
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> StoredVersions.of(store.stepWrites().effects(lock)));
        assertTrue(e.getMessage().contains("effects/storage"), e.getMessage());
        // the report says what it can
        store.moves().transition(lock, JobState.FAILED, Change.failure("inventory refused the version"));
        assertNull(StoredVersions.of(store.jobs().load(lock.jid()), store, home));
        HeldJob other = lockedJob(store, config("http://example.org/b.txt", "file"), 5);
        StoredVersion v = new StoredVersion("ark:/99999/fk4sv6", 1, "http://storage/manifest/ark6");
        store.stepWrites()
                .storeStarted(other, "ark:/99999/fk4sv6 v0", "http://host/files/m", "add/9001/ark", List.of());
        store.stepWrites().storeDone(other, new String(QueueJson.write(v), StandardCharsets.UTF_8), v.manifestUrl());
        store.moves().transition(other, JobState.FAILED, Change.failure("inventory refused the version"));
        assertEquals(Map.of(other.jid(), v), StoredVersions.of(
                List.of(store.jobs().load(lock.jid()), store.jobs().load(other.jid())), store, home),
                "one unreadable record leaves the other jobs' answers");
    }

    @Test
    void anAddRecordedAsStartedOnlyIsNoAnswer() {
        HeldJob lock = lockedJob(store, config("http://example.org/a.txt", "file"), 5);
        store.stepWrites().storeStarted(lock, "ark:/99999/fk4sv3 v0", "http://host/files/m", "add/9001/ark", List.of());
        assertNull(
                StoredVersions.of(store.stepWrites().effects(lock)),
                "begun, answer lost: recording must not take it as stored");
    }
}
