package org.cdlib.mrt.ingestqueue.runtime;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.RangeServer;
import org.cdlib.mrt.ingestqueue.fetch.ResumeRecord;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A service instance (a separate JVM) is killed with SIGKILL half-way through a 2 GiB download; the
 * instance that holds the job next asks the payload server only for the rest, and the depositor's md5
 * of the whole file is checked. The server counts the
 * bytes it sends: the whole file once, plus what was in flight past the last recorded byte.
 */
class ResumeAfterKillTest {
    static final long SIZE = 2L * 1024 * 1024 * 1024;
    /** Where the payload server stops until the first instance is dead. */
    static final long PAUSE = 1024L * 1024 * 1024;
    /** What a kill may lose: the bytes since the last recorded one (DownloadFile.RESUME_EVERY_BYTES). */
    static final long RECORDED_EVERY = 64L * 1024 * 1024;

    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();

    final Path dir = ZK.dir();

    @Test
    void anInstanceKilledMidDownloadLeavesTheRestToTheNextHolderNotTheWholeFile() throws Exception {
        Process other = null;
        IngestService survivor = null;
        try (RangeServer payload = new RangeServer(SIZE, 48).pauseAt(PAUSE)) {
            CompletableFuture<String> md5 = CompletableFuture.supplyAsync(() -> payload.digest(DigestAlgorithm.MD5));
            Map<String, String> config = new HashMap<>();
            config.put("zookeeper.connect", ZK.connectString());
            config.put("zookeeper.session-timeout", "PT4S");
            config.put("ingest.home", dir.resolve("queue").toString());
            config.put("ingest.profiles", dir.resolve("profiles").toString());
            config.put("ingest.storage.local.root", dir.resolve("storage").toString());
            config.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath()
                    + "/inv;AUTO_SERVER=TRUE");
            config.put("ingest.mail.outbox", dir.resolve("outbox").toString());
            config.put("ingest.http.port", "0");
            config.put("ingest.fetch.allow", AddressPolicy.LOOPBACK);
            config.put("ingest.concurrency.downloading", "1");
            config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");

            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                    "-Dzookeeper.forceSync=no", "-Djute.maxbuffer=524288"));
            config.forEach((k, v) -> command.add("-D" + k + "=" + v));
            command.add("org.cdlib.mrt.ingestqueue.Main");
            Path otherLog = dir.resolve("other-instance.log");
            other = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(otherLog.toFile()).start();
            long otherPid = other.pid();
            await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(otherLog)
                    && Files.readString(otherLog).contains("ingest-queue running"));

            http.stubFor(get(urlEqualTo("/batch.checkm")).willReturn(aResponse().withBody("#%checkm_0.7\n"
                    + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                    + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize |"
                    + " nfo:fileLastModified | nfo:fileName\n"
                    + payload.url() + " | md5 | " + md5.join() + " | " + SIZE + " | | big.bin\n#%eof\n")));
            QueueStore store = ZK.store(dir.resolve("queue"));
            String bid = store.batches().create(QueueTestSupport.submission("demo_content", "tester",
                    http.baseUrl() + "/batch.checkm", "single-file-batch-manifest", Instant.now().toString()));

            // the first instance downloads until the server pauses, and has recorded what it wrote by then
            AtomicReference<String> jid = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                for (Job j : store.jobs().load(store.jobs().refs(JobState.DOWNLOADING).stream()
                        .map(QueuePaths::jidOfRef).toList())) {
                    if (j.lockOwner() != null && j.lockOwner().pid() == otherPid) {
                        jid.set(j.id());
                    }
                }
                return jid.get() != null && payload.atPause()
                        && record().map(r -> r.bytes() >= PAUSE - RECORDED_EVERY).orElse(false);
            });
            other.destroyForcibly().waitFor();
            long recorded = record().orElseThrow().bytes();
            payload.release(); // the dead instance's connection is gone; what the server still sends is lost
            await().atMost(Duration.ofSeconds(30)).until(() -> payload.ended.get() == 1); // its writes failed
            long sentToTheDead = payload.sent.get();

            survivor = new IngestService(config).start();
            // the download is what is measured: once this instance holds the job, the batch's hold stops it at the
            // end of its download, so storing's copy of 2 GiB is not made
            long self = ProcessHandle.current().pid();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                Job j = store.jobs().load(jid.get());
                return j.lockOwner() != null && j.lockOwner().pid() == self;
            });
            store.holds().holdBatch(bid, "test");
            await().atMost(Duration.ofSeconds(120)).until(() -> {
                JobState s = store.jobs().load(jid.get()).state();
                return s == JobState.HELD || s == JobState.FAILED;
            });
            Job job = store.jobs().load(jid.get());
            assertEquals(JobState.HELD, job.state(), "stopped after its download, not failed: " + job);
            // moved into producer/ only once its md5 was the one the depositor gave
            assertEquals(SIZE, Files.size(producer(job)), "downloaded, the md5 the depositor gave checked");
            assertEquals(List.of("", "bytes=" + recorded + "-"), payload.ranges,
                    "the next holder asked for the rest, from the last byte recorded");
            long lostInFlight = sentToTheDead - recorded;
            assertTrue(lostInFlight < RECORDED_EVERY + 8L * 1024 * 1024, "lost in flight: " + lostInFlight);
            assertEquals(SIZE + lostInFlight, payload.sent.get(),
                    "the server sent the file once, plus only what the kill lost (not a second 2 GiB)");
        } finally {
            if (other != null) {
                other.destroyForcibly().waitFor();
            }
            if (survivor != null) {
                survivor.close();
            }
            deleteLargeFiles();
        }
    }

    static Path producer(Job job) {
        return Path.of(job.configuration().workingDir()).resolve("producer").resolve("big.bin");
    }

    /** The resume record the downloading instance keeps in the job's working directory. */
    Optional<ResumeRecord> record() throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve("queue"))) {
            return files.filter(p -> p.toString().endsWith(".resume")).findFirst().map(ResumeRecord::read);
        } catch (UncheckedIOException e) {
            return Optional.empty(); // a directory went while walked
        }
    }

    /** The 2 GiB is not left for the rest of the suite: the working directory and the stored copy go. */
    void deleteLargeFiles() throws IOException {
        for (Path root : List.of(dir.resolve("queue"), dir.resolve("storage"))) {
            if (Files.exists(root)) {
                try (Stream<Path> all = Files.walk(root)) {
                    all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }
}
