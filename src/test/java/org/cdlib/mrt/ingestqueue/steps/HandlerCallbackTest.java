package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The notify step calls a Merritt profile back only when its handlers include HandlerCallback. */
class HandlerCallbackTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();

    final Path dir = ZK.dir();

    @Test
    void aProfileWhoseCallbackHandlerIsCommentedOutIsNotCalledBackAndOneListingItIs() throws Exception {
        QueueStore store = ZK.store(dir.resolve("queue"));
        Path p = Files.createDirectories(dir.resolve("profiles"));
        String profile = "ProfileID: %s\nCollection.1: ark:/99999/fk4c\nStorageNode: 7777\nCallbackURL: "
                + http.baseUrl() + "/cb\n"
                + "HandlerInitialize.1: org.cdlib.mrt.ingest.handlers.initialize.HandlerInitialize\n"
                + "HandlerNotification.1: org.cdlib.mrt.ingest.handlers.notification.HandlerNotification\n"
                + "%sHandlerNotification.2: org.cdlib.mrt.ingest.handlers.notification.HandlerCallback\n";
        Files.writeString(p.resolve("demo_content"), profile.formatted("demo_content", "# "));
        Files.writeString(p.resolve("with_callback"), profile.formatted("with_callback", ""));
        ProfileDirectory profiles = new ProfileDirectory(p);
        http.stubFor(post(anyUrl()).willReturn(aResponse().withStatus(200)));
        ServiceRoutes notify = new ServiceRoutes(store, profiles, ServiceRoutes.config(
                "ingest.storage.local.root", dir.resolve("storage").toString()));

        HeldJob silent = StepTestSupport.lockedJob(store, StepTestSupport.config("http://x/a.txt", "file"), 5);
        Exchange ex = notify.notify(silent);
        http.verify(0, postRequestedFor(anyUrl()));
        assertEquals("no HandlerCallback in profile demo_content: not called back", JobExchange.change(ex).reason());

        JobConfiguration called = StepTestSupport.withCallbackProfile();
        HeldJob loud = StepTestSupport.lockedJob(store, called, 5);
        // a deadline another job's fence armed on this thread and never used (seen when an earlier test left one):
        // it was that job's run's, which ended with it
        Run earlier = Run.begin();
        earlier.sendBy(System.nanoTime() - 1);
        earlier.end();
        notify.notify(loud);
        http.verify(1, postRequestedFor(urlEqualTo("/cb/mc/" + loud.jid())));
        notify.close();
    }
}
