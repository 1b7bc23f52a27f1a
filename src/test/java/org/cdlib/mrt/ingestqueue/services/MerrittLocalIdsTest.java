package org.cdlib.mrt.ingestqueue.services;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Merritt inventory's local-id calls (CONTRACTS §6), against WireMock: lookup, bind, read back. */
class MerrittLocalIdsTest {
    @RegisterExtension
    static final WireMockExtension http = WireMockExtension.newInstance()
            .options(WireMockConfiguration.options().dynamicPort()).build();
    @TempDir
    Path dir;

    MerrittLocalIds ids() throws Exception {
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(p.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\nOwner: ark:/99999/fk4own\n");
        ProfileDirectory profiles = new ProfileDirectory(p);
        return new MerrittLocalIds(new HttpService("inventory", Duration.ofSeconds(2), Duration.ofSeconds(2), 1,
                Duration.ofMillis(10)), http.baseUrl() + "/inv", id -> profiles.find(id).orElse(null));
    }

    @Test
    void anUnboundLocalIdIsBoundAndReadBackAndABoundOneIsNotRebound() throws Exception {
        String lookup = "/inv/primary/ark%3A%2F99999%2Ffk4own/my%20id";
        http.stubFor(get(urlPathEqualTo(lookup)).inScenario("bind").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(404)));
        http.stubFor(get(urlPathEqualTo(lookup)).inScenario("bind").whenScenarioStateIs("bound")
                .willReturn(aResponse().withStatus(200).withBody("{\"invl:localContainerState\":{\"primaryIdentifier\":\"ark:/99999/fk4new\"}}")));
        http.stubFor(post(urlPathEqualTo("/inv/primary/ark%3A%2F99999%2Ffk4new/ark%3A%2F99999%2Ffk4own/my%20id"))
                .inScenario("bind").whenScenarioStateIs(Scenario.STARTED).willReturn(aResponse().withStatus(200)).willSetStateTo("bound"));
        MerrittLocalIds ids = ids();
        assertEquals(Optional.empty(), ids.primaryFor("demo_content", "my id"));
        assertEquals("ark:/99999/fk4new", ids.bind("demo_content", "my id", "ark:/99999/fk4new"));
        assertEquals("ark:/99999/fk4new", ids.bind("demo_content", "my id", "ark:/99999/fk4other"), "bound already: kept");
        http.verify(1, postRequestedFor(urlPathEqualTo("/inv/primary/ark%3A%2F99999%2Ffk4new/ark%3A%2F99999%2Ffk4own/my%20id")));
    }

    @Test
    void anXmlAnswerNamesTheArkToo() {
        assertEquals(Optional.of("ark:/13030/m5abc"), MerrittLocalIds.ark("<inv:primaryIdentifier>ark:/13030/m5abc</inv:primaryIdentifier>"));
        assertTrue(MerrittLocalIds.ark("<nothing/>").isEmpty());
    }
}
