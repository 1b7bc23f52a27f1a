package org.cdlib.mrt.ingestqueue.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** The command line's calls to a running service's API (JSON), with Basic credentials when given. */
final class ApiClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String auth;

    /** The service answered with a refusal: its message is what the operator reads. */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    static final class Unreachable extends RuntimeException {
        Unreachable(String message) {
            super(message);
        }
    }

    ApiClient(String base, String userAndPassword) {
        this.base = base.replaceAll("/+$", "");
        this.auth = userAndPassword == null ? null
                : "Basic " + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
    }

    JsonNode get(String path) {
        return expectOk(send(request(path).GET()), "GET " + path);
    }

    /** For health: its 503 DOWN answer is an answer, not a refusal. */
    JsonNode getAnyStatus(String path) {
        return parse(send(request(path).GET()));
    }

    JsonNode post(String path) {
        return expectOk(
                send(request(path)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .header("X-Requested-With", "ingest-queue-cli")),
                "POST " + path);
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofMinutes(10))
                .header("Accept", "application/json");
        return auth == null ? b : b.header("Authorization", auth);
    }

    private HttpResponse<String> send(HttpRequest.Builder b) {
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Unreachable("cannot reach the service at " + base + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); give --url or INGEST_URL");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted");
        }
    }

    private static JsonNode expectOk(HttpResponse<String> r, String what) {
        if (r.statusCode() / 100 != 2) {
            JsonNode body = parse(r);
            String message = body.hasNonNull("error") ? body.get("error").asText() : r.body();
            throw new Refused(what + ": HTTP " + r.statusCode() + ": " + message
                    + (r.statusCode() == 401 ? " (give an admin's --user user:password or INGEST_USER)" : ""));
        }
        return parse(r);
    }

    private static JsonNode parse(HttpResponse<String> r) {
        try {
            return JSON.readTree(r.body() == null || r.body().isBlank() ? "{}" : r.body());
        } catch (IOException e) {
            return JSON.createObjectNode().put("error", r.body());
        }
    }
}
