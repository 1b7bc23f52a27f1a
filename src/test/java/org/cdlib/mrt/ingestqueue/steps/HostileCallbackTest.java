package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.fetch.HostileServer;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The callback's URL is the depositor's (their profile's): its answer is bounded like a payload
 * server's. Endless header lines or an endless body fail the job once, naming the limit, and the
 * call, repeatable as it is, is not sent again.
 */
class HostileCallbackTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    final Path dir = ZK.dir();

    ServiceRoutes routes(QueueStore store, String callbackUrl) throws Exception {
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(
                p.resolve("with_callback"),
                "ProfileID: with_callback\nCollection.1: ark:/99999/fk4c\nStorageNode: 7777\n"
                        + "CallbackURL: " + callbackUrl + "\n"
                        + "HandlerCallback.1: org.cdlib.mrt.ingest.handlers.notification.HandlerCallback\n");
        return new ServiceRoutes(
                store,
                new ProfileDirectory(p),
                ServiceRoutes.config(
                        "ingest.storage.local.root",
                        dir.resolve("storage").toString(),
                        "ingest.services.max-answer-bytes",
                        "100000"));
    }

    HeldJob job(QueueStore store) throws Exception {
        JobConfiguration called = StepTestSupport.withCallbackProfile();
        return StepTestSupport.lockedJob(store, called, 5);
    }

    @Test
    void aCallbackAnsweredWithEndlessHeaderLinesFailsTheJobOnceNamingTheLimit() throws Exception {
        QueueStore store = ZK.store(dir.resolve("queue"));
        try (HostileServer hostile = new HostileServer(HostileServer.endlessHeaders());
                ServiceRoutes notify = routes(store, hostile.url("/cb"))) {
            HeldJob lock = job(store);
            long start = System.nanoTime();
            ServiceRoutes.JobFailed e = assertThrows(ServiceRoutes.JobFailed.class, () -> notify.notify(lock));
            assertEquals("POST " + hostile.url("/cb/mc/" + lock.jid()) + ": the server sent more than 100 header lines "
                    + "(limit ingest.services.max-header-count)", e.getMessage());
            assertEquals(1, hostile.requests.size(), "not sent again: " + hostile.requests);
            assertTrue(System.nanoTime() - start < 10_000_000_000L, "failed fast");
        }
    }

    @Test
    void aCallbackAnsweredWithAnEndlessBodyFailsTheJobAtTheAnswerLimit() throws Exception {
        QueueStore store = ZK.store(dir.resolve("queue"));
        try (HostileServer endless = new HostileServer(HostileServer.endlessBody(-1));
                HostileServer announced = new HostileServer(HostileServer.endlessBody(1L << 40));
                ServiceRoutes notify = routes(store, endless.url("/cb"))) {
            HeldJob lock = job(store);
            ServiceRoutes.JobFailed e = assertThrows(ServiceRoutes.JobFailed.class, () -> notify.notify(lock));
            assertEquals(
                    "POST " + endless.url("/cb/mc/" + lock.jid()) + ": the answer's body is larger than 100000 bytes "
                            + "(limit ingest.services.max-answer-bytes)",
                    e.getMessage());
            assertEquals(1, endless.requests.size(), "not sent again: " + endless.requests);
        }
    }
}
