package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The local-id sub-routes of processing.yaml against Merritt inventory (WireMock): the lookup
 * ({@code GET /primary/<owner>/<local id>}), and the bind that looks first, binds only an
 * unbound id ({@code POST /primary/<ark>/<owner>/<local id>}) and reads the binding back.
 */
class LocalIdRoutesTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer http = ZK.http();
    final Path dir = ZK.dir();

    @Test
    void anUnboundLocalIdIsBoundAndReadBackAndABoundOneIsNotRebound() throws Exception {
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(
                p.resolve("demo_content"),
                "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\nOwner: ark:/99999/fk4own\n");
        ProfileDirectory profiles = new ProfileDirectory(p);
        String lookup = "/inv/primary/ark%3A%2F99999%2Ffk4own/my%20id";
        String bind = "/inv/primary/ark%3A%2F99999%2Ffk4new/ark%3A%2F99999%2Ffk4own/my%20id";
        http.stubFor(get(urlPathEqualTo(lookup)).inScenario("bind").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(404)));
        http.stubFor(get(urlPathEqualTo(lookup))
                .inScenario("bind")
                .whenScenarioStateIs("bound")
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("{\"invl:localContainerState\":{\"primaryIdentifier\":\"ark:/99999/fk4new\"}}")));
        http.stubFor(post(urlPathEqualTo(bind)).inScenario("bind").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(200)).willSetStateTo("bound"));
        try (ServiceRoutes routes = new ServiceRoutes(ZK.store(dir.resolve("queue")), profiles, ServiceRoutes.config(
                "ingest.storage.local.root", dir.resolve("storage").toString(), "ingest.inventory", "http",
                "ingest.inventory.url", http.baseUrl() + "/inv"))) {
            assertNull(call(routes, profiles, "direct:local-id-lookup", "ark:/99999/fk4new")
                    .getProperty(ServiceCall.RESULT));
            assertEquals("ark:/99999/fk4new", call(routes, profiles, "direct:local-id-bind", "ark:/99999/fk4new")
                    .getProperty(ServiceCall.RESULT));
            assertEquals("ark:/99999/fk4new", call(routes, profiles, "direct:local-id-bind", "ark:/99999/fk4other")
                    .getProperty(ServiceCall.RESULT), "bound already: kept");
        }
        http.verify(1, postRequestedFor(urlPathEqualTo(bind)));
        http.verify(getRequestedFor(urlPathEqualTo(lookup)).withQueryParam("responseForm", equalTo("json"))
                .withoutHeader("jobId"));
    }

    private static Exchange call(ServiceRoutes routes, ProfileDirectory profiles, String uri, String ark) {
        Exchange ex = new DefaultExchange(routes.camel);
        ex.setProperty(ServiceCall.PROFILE, profiles.require("demo_content"));
        ex.setProperty(ServiceCall.LOCAL_ID, "my id");
        ex.setProperty(ServiceCall.ARK, ark);
        ex.getIn().setHeader("jobId", "jid0000000001");
        Exchange done = routes.camel.createProducerTemplate().send(uri, ex);
        if (done.getException() != null) {
            throw new AssertionError(done.getException());
        }
        return done;
    }
}
