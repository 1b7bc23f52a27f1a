package org.cdlib.mrt.ingestqueue.services;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.Job;

/** The profile's callback (CONTRACTS §8): {@code POST <CallbackURL>/mc/<job id>} with the job's state as JSON. */
public final class Callback {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpService http;

    public Callback(HttpService http) {
        this.http = http;
    }

    /** The same for every attempt at one notice: job, status and the job's retry count. */
    public static String key(Job job, String status) {
        return job.id() + "-" + status + "-" + job.status().retryCount();
    }

    /** Returns false when the profile has no callback (no URL, or handlers listed without HandlerCallback). */
    public boolean send(Profile profile, Job job, String status) throws ServiceException, InterruptedException {
        if (!profile.callsBack()) {
            return false;
        }
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("job_id", job.id());
        state.put("batch_id", job.batchId());
        state.put("status", status);
        state.put("primary_id", job.identifiers().primary());
        state.put("local_id", job.identifiers().localId());
        state.put("profile", profile.id());
        state.put("idempotency_key", key(job, status));
        String body;
        try {
            body = JSON.writeValueAsString(Map.of("job", state));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        URI uri = URI.create(profile.callbackUrl().replaceAll("/+$", "") + "/mc/" + job.id());
        var r = http.send(http.request(uri).header("Content-Type", "application/json").header("Idempotency-Key", key(job, status))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        if (r.statusCode() / 100 != 2) {
            HttpService.expect(r, 200, "callback");
        }
        return true;
    }
}
