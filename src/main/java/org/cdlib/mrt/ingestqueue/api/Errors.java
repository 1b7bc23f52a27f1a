package org.cdlib.mrt.ingestqueue.api;

import io.vertx.ext.web.RoutingContext;
import java.util.List;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.admin.ConfirmRequiredException;
import org.cdlib.mrt.ingestqueue.queue.model.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.LockedException;
import org.cdlib.mrt.ingestqueue.queue.model.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How the queue's refusals reach an HTTP client: the status that fits and the queue's own message. */
final class Errors {
    private static final Logger LOG = LoggerFactory.getLogger(Errors.class);
    /** The failures the router itself met (a body it could not read, a handler that threw), under the server's name. */
    private static final Logger HTTP_LOG = LoggerFactory.getLogger(HttpApi.class);

    private Errors() {
    }

    /** A short id that ties an answer to its log line. */
    private static String reference() {
        return "ref-" + Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41), 36);
    }

    static void answer(RoutingContext rc, RuntimeException e) {
        if (e instanceof IllegalTransitionException t) {
            HttpApi.fail(rc, 409, t.getMessage(), QueueViews.wire(t.allowed()));
        } else if (e instanceof LockedException || e instanceof ConfirmRequiredException) {
            HttpApi.fail(rc, 409, e.getMessage(), List.of());
        } else if (e instanceof NotFoundException) {
            HttpApi.fail(rc, 404, e.getMessage(), List.of());
        } else if (e instanceof ProfileRegistry.UnknownProfileException || e instanceof IllegalArgumentException) {
            HttpApi.fail(rc, 400, e.getMessage(), List.of());
        } else if (e instanceof CorruptNodeException) {
            // the item's data, not the service, is broken: 409 naming it and what removes it (the periodic repair
            // fixes what can be derived), logged as a warning, not as the service's failure
            LOG.warn("{} {}: {}", rc.request().method(), rc.request().path(), e.getMessage());
            HttpApi.fail(rc, 409, e.getMessage() + " (repair what can be derived: POST /api/fsck/repair; or delete the "
                    + "damaged job or batch: POST /api/jobs/<jid>/delete, POST /api/batches/<bid>/delete)", List.of());
        } else if (e instanceof org.cdlib.mrt.ingestqueue.queue.model.DepositorLimitException) {
            rc.response().putHeader("Retry-After", "60"); // this depositor's limit, not the service's: others are served
            HttpApi.fail(rc, 429, e.getMessage(), List.of());
        } else if (e instanceof org.cdlib.mrt.ingestqueue.queue.model.QueueFullException) {
            rc.response().putHeader("Retry-After", "60");
            HttpApi.fail(rc, 503, e.getMessage(), List.of());
        } else if (e instanceof QueueException) {
            // ZooKeeper's own text (paths, error codes) stays in the log
            String ref = reference();
            LOG.warn("{} {} [{}]: {}", rc.request().method(), rc.request().path(), ref, e.getMessage(), e.getCause());
            HttpApi.fail(rc, 503, e.getCause() == null && !e.getMessage().contains("/") ? e.getMessage()
                    : "the queue cannot do this now (ZooKeeper did not answer or refused); try again shortly "
                    + "(the service log has the details under " + ref + ")", List.of());
        } else {
            String ref = reference();
            LOG.error("{} {} failed [{}]", rc.request().method(), rc.request().path(), ref, e);
            HttpApi.fail(rc, 500, "the request failed inside the service; the service log has the details under " + ref, List.of());
        }
    }

    /** The router's failure handler: what a failed request is answered, by what failed it. */
    static void failed(RoutingContext rc, RequestBodies bodies) {
        int status = RequestBodies.uploadAborted(rc) ? 400 : rc.statusCode() > 0 ? rc.statusCode() : 500;
        if (status == 403 && rc.get(Guard.CSRF_CHECKED) != null) {
            Guard.csrfRefused(rc);
            return;
        }
        if (status == 500 && rc.failure() != null) {
            HTTP_LOG.error("{} {} failed", rc.request().method(), rc.request().path(), rc.failure());
        }
        HttpApi.fail(rc, status, status == 413 ? bodies.tooLarge(rc)
                : status == 400 && RequestBodies.uploadAborted(rc) ? "the upload was cut off: a form field is larger than "
                        + HttpApi.MAX_FORM_ATTRIBUTE_BYTES + " bytes, or the request ended early; nothing was kept"
                : status == 400 && RequestBodies.formFieldTooLarge(rc.failure()) ? "a form field is larger than " + HttpApi.MAX_FORM_ATTRIBUTE_BYTES
                        + " bytes; a field takes at most " + QueueLimits.FIELD_BYTES + " bytes (a URL " + QueueLimits.URL_BYTES
                        + ", the Dublin Core fields " + QueueLimits.DUBLIN_CORE_BYTES + " together)"
                : status == 500 ? "the request failed inside the service; the service log has the details"
                : rc.failure() != null ? String.valueOf(rc.failure().getMessage()) : "request failed", List.of());
    }
}
