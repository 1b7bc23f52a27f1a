package org.cdlib.mrt.ingestqueue.services;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.Job;

/**
 * The profile's callback (CONTRACTS §8), the halves of its call in {@code routes/notify.yaml}:
 * {@code POST <CallbackURL>/mc/<job id>} with the job's state as JSON (the route marshals the
 * map this puts in the body) and an {@code Idempotency-Key} that is the same for every attempt
 * at one notice, so a receiver can drop a repeat; any 2xx is an answer.
 */
public final class Callback {
    /** The notice's status. */
    public static final String STATUS = "callbackStatus";

    private Callback() {
    }

    /** The same for every attempt at one notice: job, status and the job's retry count. */
    public static String key(Job job, String status) {
        return job.id() + "-" + status + "-" + job.status().retryCount();
    }

    public static void request(Exchange exchange, Job job) {
        Profile profile = exchange.getProperty(ServiceCall.PROFILE, Profile.class);
        String status = exchange.getProperty(STATUS, "completed", String.class);
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("job_id", job.id());
        state.put("batch_id", job.batchId());
        state.put("status", status);
        state.put("primary_id", job.identifiers().primary());
        state.put("local_id", job.identifiers().localId());
        state.put("profile", profile.id());
        state.put("idempotency_key", key(job, status));
        ServiceCall.prepare(exchange, "POST", profile.callbackUrl().replaceAll("/+$", "") + "/mc/" + job.id(),
                "application/json", null, true);
        exchange.getIn().setHeader("Idempotency-Key", key(job, status));
        exchange.getIn().setBody(Map.of("job", state));
    }

    public static void answer(Exchange exchange) throws ServiceException {
        int status = ServiceCall.status(exchange);
        if (status / 100 != 2) {
            ServiceCall.expect(exchange, 200, "callback");
        }
    }
}
