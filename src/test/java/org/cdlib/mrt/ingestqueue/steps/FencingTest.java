package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing: a worker whose session ended while it worked (a host paused past its session
 * timeout) keeps nothing in the shared working directory that another host now owns.
 */
class FencingTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    final Path home = ZK.dir();

    @Test
    void aWorkerWhoseSessionExpiredKeepsNoDownloadAndAnotherHostTakesTheJob() throws Exception {
        http.stubFor(get(urlEqualTo("/a.txt")).willReturn(aResponse().withBody("stale")));
        CuratorFramework paused = QueueTestSupport.client(ZK.server());
        try {
            QueueStore store = QueueTestSupport.store(paused, home);
            HeldJob lock = StepTestSupport.lockedJob(
                    store, StepTestSupport.config(http.baseUrl() + "/a.txt", "file", "a.txt", null, null, null), 5);
            paused.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
            await().atMost(Duration.ofSeconds(20)).until(() -> !lock.isAlive());

            DownloadStep step = new DownloadStep(new Fetcher(FetchSettings.defaults().withAllow(
                    AddressPolicy.LOOPBACK), home), home);
            Exception e = assertThrows(Exception.class, () -> step.process(StepTestSupport.exchange(lock)));
            assertTrue(e.getMessage().contains("no longer holds its lock"), e.getMessage());
            Path producer = Path.of(lock.job().configuration().workingDir()).resolve("producer");
            assertFalse(Files.exists(producer.resolve("a.txt")), "nothing kept in the working directory");

            QueueStore other = ZK.store(home);
            // the server ends the session (and its ephemeral lock) once the session timeout has passed
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            other.claims().tryLockJob(lock.jid(), "other-host").isPresent());
        } finally {
            paused.close();
        }
    }
}
