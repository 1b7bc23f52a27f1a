package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlMatching;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two service instances on one ZooKeeper: one is a separate JVM killed with SIGKILL while it
 * downloads a job; the other takes the job over once the dead one's session expires, and the
 * batch completes with every object stored and recorded exactly once.
 */
class TwoInstancesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();

    final Path dir = ZK.dir();

    @Test
    void whenOneInstanceIsKilledMidJobTheOtherFinishesTheBatchWithEveryJobOnce() throws Exception {
        Process other = null;
        IngestService survivor = null;
        try {
            http.stubFor(any(urlMatching("/files/.*")).willReturn(aResponse().withBody("x".repeat(2000))
                    .withChunkedDribbleDelay(20, 4000)));
            StringBuilder m = new StringBuilder("#%checkm_0.7\n"
                    + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                    + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize |"
                    + " nfo:fileLastModified | nfo:fileName\n");
            for (int i = 0; i < 4; i++) {
                m.append(http.baseUrl())
                        .append("/files/f")
                        .append(i)
                        .append(".txt | | | | | f")
                        .append(i)
                        .append(".txt\n");
            }
            http.stubFor(get(urlEqualTo("/batch.checkm"))
                    .willReturn(aResponse().withBody(m.append("#%eof\n").toString())));

            Map<String, String> config = new HashMap<>();
            config.put("zookeeper.connect", ZK.connectString());
            config.put("zookeeper.session-timeout", "PT4S");
            config.put("ingest.home", dir.resolve("queue").toString());
            config.put("ingest.profiles", dir.resolve("profiles").toString());
            config.put("ingest.storage.local.root", dir.resolve("storage").toString());
            // both hosts record into one inventory, so "exactly once" can be counted there
            config.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath()
                    + "/inv;AUTO_SERVER=TRUE");
            config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
            config.put("ingest.http.port", "0");
            config.put("ingest.fetch.allow", AddressPolicy.LOOPBACK); // WireMock on loopback
            config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");

            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    "-Dzookeeper.forceSync=no",
                    "-Djute.maxbuffer=524288"));
            config.forEach((k, v) -> command.add("-D" + k + "=" + v));
            command.add("-Dingest.concurrency.downloading=4");
            command.add("org.cdlib.mrt.ingestqueue.Main");
            other = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("other-instance.log").toFile()).start();
            long otherPid = other.pid();

            // the survivor starts once the other instance's routes run, and downloads one job at a
            // time, so the other is sure to be in the middle of a download when it is killed
            Path otherLog = dir.resolve("other-instance.log");
            await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(otherLog)
                    && Files.readString(otherLog).contains("ingest-queue running"));
            config.put("ingest.concurrency.downloading", "1");
            survivor = new IngestService(config).start();
            QueueStore store = survivor.store();
            String bid = store.batches()
                    .create(QueueTestSupport.submission("demo_content", "tester", http.baseUrl() + "/batch.checkm",
                            "single-file-batch-manifest", Instant.now().toString()));

            AtomicReference<String> victim = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (Job j : store.jobs().load(store.jobs().refs(JobState.DOWNLOADING).stream()
                        .map(QueuePaths::jidOfRef).toList())) {
                    if (j.lockOwner() != null && j.lockOwner().pid() == otherPid) {
                        victim.set(j.id());
                        return true;
                    }
                }
                return false;
            });
            other.destroyForcibly().waitFor();

            await().atMost(Duration.ofSeconds(90)).until(() -> {
                BatchState s = store.batches().load(bid).state();
                return s == BatchState.COMPLETED || s == BatchState.FAILED;
            });
            Batch batch = store.batches().load(bid);
            assertEquals(BatchState.COMPLETED, batch.state(), "batch " + batch);
            assertEquals(4, store.batches().jobs(batch.id(), BatchRef.COMPLETED).size());
            Job taken = store.jobs().load(victim.get());
            assertEquals(JobState.COMPLETED, taken.state());
            assertEquals(0, taken.status().retryCount(), "taken over, not requeued");
            try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath()
                    + "/inv;AUTO_SERVER=TRUE", "sa", "");
                 ResultSet r = c.createStatement().executeQuery("SELECT COUNT(*), COUNT(DISTINCT ark) FROM versions")) {
                r.next();
                assertEquals(4, r.getInt(1), "four versions recorded in all");
                assertEquals(4, r.getInt(2), "one per object: no job ran twice to the end");
            }
            assertTrue(new ConsistencyCheck(store).check().clean());
        } finally {
            if (other != null) {
                other.destroyForcibly();
            }
            if (survivor != null) {
                survivor.close();
            }
        }
    }
}
