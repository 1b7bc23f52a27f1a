package org.cdlib.mrt.ingestqueue.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.TestZooKeeper;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** HTTP semantics: 405 with Allow for a wrong method on a known resource, 400 for a malformed id, 404 for a missing one. */
class HttpSemanticsTest {
    @RegisterExtension
    static final TestZooKeeper ZK = new TestZooKeeper();
    static final HttpClient CLIENT = HttpClient.newHttpClient();
    @TempDir
    Path dir;
    IngestService service;
    String base;

    @BeforeEach
    void start() throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.server().getConnectString(), dir));
        config.put("ingest.api.users", "alice:pw-a:admin|submitter");
        service = new IngestService(config, new ServiceTestSupport().beans()).start();
        base = "http://127.0.0.1:" + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
    }

    @AfterEach
    void stop() {
        service.close();
    }

    HttpResponse<String> call(String method, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base + path)).method(method, HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:pw-a".getBytes(StandardCharsets.UTF_8)))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aWrongMethodIs405WithAllowAMalformedId400AndAMissingOne404() throws Exception {
        HttpResponse<String> get = call("GET", "/api/queue/hold");
        assertEquals(405, get.statusCode(), get.body());
        assertEquals("POST", get.headers().firstValue("Allow").orElse(""));
        assertTrue(get.body().contains("takes POST"), get.body());
        HttpResponse<String> delete = call("DELETE", "/api/jobs/jid0000000001");
        assertEquals(405, delete.statusCode());
        assertEquals("GET", delete.headers().firstValue("Allow").orElse(""));
        assertEquals(400, call("GET", "/api/jobs/not-a-job").statusCode());
        assertEquals(404, call("GET", "/api/jobs/jid0000099999").statusCode());
        assertEquals(404, call("GET", "/api/nothing-here").statusCode());
        assertEquals(200, call("GET", "/api/queue").statusCode());
    }
}
