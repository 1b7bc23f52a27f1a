package org.cdlib.mrt.ingestqueue.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;

/** What every route shares of an exchange: a JSON answer, an error answer, the body read as text. */
public final class Answers {
    public static final ObjectMapper JSON = QueueJson.MAPPER;

    private Answers() {
    }

    public static void json(RoutingContext rc, int status, Object body) {
        try {
            rc.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=UTF-8")
                    .end(Buffer.buffer(JSON.writeValueAsBytes(body)));
        } catch (Exception e) {
            rc.response().setStatusCode(500).end();
        }
    }

    public static void fail(RoutingContext rc, int status, String message, List<String> allowed) {
        if (rc.response().ended()) {
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("status", status);
        if (!allowed.isEmpty()) {
            body.put("allowed", allowed);
        }
        json(rc, status, body);
    }

    public static String text(RoutingContext rc) {
        return rc.body() == null || rc.body().buffer() == null ? "" : rc.body().buffer()
                .toString(StandardCharsets.UTF_8);
    }
}
