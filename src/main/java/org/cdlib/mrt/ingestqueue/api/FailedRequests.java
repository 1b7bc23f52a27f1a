package org.cdlib.mrt.ingestqueue.api;

import io.vertx.ext.web.RoutingContext;
import java.util.List;
import org.cdlib.mrt.ingestqueue.api.auth.Guard;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's failure handler: what a failed request is answered, by what failed it. It sits with the
 * server, not in {@code http}, because the failures it tells apart are the guard's (a CSRF refusal) and the
 * body reading's (a 413 that names the user's quota) as well as the router's own.
 */
final class FailedRequests {
    /** The failures the router itself met (a body it could not read, a handler that threw), under the server's name. */
    private static final Logger HTTP_LOG = LoggerFactory.getLogger(HttpApi.class);

    private FailedRequests() {
    }

    static void failed(RoutingContext rc, RequestBodies bodies) {
        int status = RequestBodies.uploadAborted(rc) ? 400 : rc.statusCode() > 0 ? rc.statusCode() : 500;
        if (status == 403 && rc.get(Guard.CSRF_CHECKED) != null) {
            Guard.csrfRefused(rc);
            return;
        }
        if (status == 500 && rc.failure() != null) {
            HTTP_LOG.error("{} {} failed", rc.request().method(), rc.request().path(), rc.failure());
        }
        Answers.fail(rc, status, status == 413 ? bodies.tooLarge(rc)
                : status == 400 && RequestBodies.uploadAborted(rc)
                ? "the upload was cut off: a form field is larger than "
                        + HttpApi.MAX_FORM_ATTRIBUTE_BYTES + " bytes, or the request ended early; nothing was kept"
                : status == 400 && RequestBodies.formFieldTooLarge(rc.failure()) ? "a form field is larger than "
                        + HttpApi.MAX_FORM_ATTRIBUTE_BYTES
                        + " bytes; a field takes at most " + QueueLimits.FIELD_BYTES + " bytes (a URL "
                        + QueueLimits.URL_BYTES
                        + ", the Dublin Core fields " + QueueLimits.DUBLIN_CORE_BYTES + " together)"
                : status == 500 ? "the request failed inside the service; the service log has the details"
                : rc.failure() != null ? String.valueOf(rc.failure().getMessage()) : "request failed", List.of());
    }
}
