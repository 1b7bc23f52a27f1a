package org.cdlib.mrt.ingestqueue.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.runtime.RunningService;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP semantics: 405 with Allow for a wrong method on a known resource, 400 for a malformed id, 404 for a missing one.
 */
class HttpSemanticsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    @TempDir
    Path dir;
    RunningService service;

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(ZK.server().getConnectString(), dir);
    }

    @AfterEach
    void stop() {
        service.close();
    }

    HttpResponse<String> call(String method, String path) throws Exception {
        return service.call(method, path);
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
