package org.cdlib.mrt.ingestqueue.api.http;

import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.cdlib.mrt.ingestqueue.history.HistoryUnavailableException;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.admin.ConfirmRequiredException;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.DepositorLimitException;
import org.cdlib.mrt.ingestqueue.queue.errors.LockedException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueFullException;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How the queue's refusals reach an HTTP client: the status that fits and the queue's own message. */
public final class Errors {
    private static final Logger LOG = LoggerFactory.getLogger(Errors.class);

    private Errors() {
    }

    /** A short id that ties an answer to its log line. */
    private static String reference() {
        return "ref-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41), 36);
    }

    public static void answer(RoutingContext rc, RuntimeException e) {
        if (e instanceof IllegalTransitionException t) {
            Answers.fail(rc, 409, t.getMessage(), allowed(t.allowed()));
        } else if (e instanceof LockedException || e instanceof ConfirmRequiredException) {
            Answers.fail(rc, 409, e.getMessage(), List.of());
        } else if (e instanceof NotFoundException) {
            Answers.fail(rc, 404, e.getMessage(), List.of());
        } else if (e instanceof ProfileRegistry.UnknownProfileException || e instanceof IllegalArgumentException) {
            Answers.fail(rc, 400, e.getMessage(), List.of());
        } else if (e instanceof CorruptNodeException) {
            // the item's data, not the service, is broken: 409 naming it and what removes it (the periodic repair
            // fixes what can be derived), logged as a warning, not as the service's failure
            LOG.warn("{} {}: {}", rc.request().method(), rc.request().path(), e.getMessage());
            Answers.fail(rc, 409, e.getMessage() + " (repair what can be derived: POST /api/fsck/repair; or delete the "
                    + "damaged job or batch: POST /api/jobs/<jid>/delete, POST /api/batches/<bid>/delete)", List.of());
        } else if (e instanceof DepositorLimitException) {
            // this depositor's limit, not the service's: others are served
            rc.response().putHeader("Retry-After", "60");
            Answers.fail(rc, 429, e.getMessage(), List.of());
        } else if (e instanceof HistoryUnavailableException) {
            // finished work is kept there: the id may be one of it, so not a 404; its reason stays in the log
            LOG.warn("{} {}: {}", rc.request().method(), rc.request().path(), e.getMessage());
            rc.response().putHeader("Retry-After", "60");
            Answers.fail(rc, 503, "finished work is kept in the history database, which cannot be reached now; try "
                    + "again shortly", List.of());
        } else if (e instanceof QueueFullException) {
            rc.response().putHeader("Retry-After", "60");
            Answers.fail(rc, 503, e.getMessage(), List.of());
        } else if (e instanceof QueueException) {
            // ZooKeeper's own text (paths, error codes) stays in the log
            String ref = reference();
            LOG.warn("{} {} [{}]: {}", rc.request().method(), rc.request().path(), ref, e.getMessage(), e.getCause());
            Answers.fail(rc, 503, e.getCause() == null && !e.getMessage().contains("/") ? e.getMessage()
                    : "the queue cannot do this now (ZooKeeper did not answer or refused); try again shortly "
                    + "(the service log has the details under " + ref + ")", List.of());
        } else {
            String ref = reference();
            LOG.error("{} {} failed [{}]", rc.request().method(), rc.request().path(), ref, e);
            Answers.fail(rc, 500, "the request failed inside the service; the service log has the details under " + ref,
                    List.of());
        }
    }

    /** An illegal transition's way out: the moves the item does allow, as the API names them. */
    private static List<String> allowed(List<? extends Transition<?>> allowed) {
        return allowed.stream().map(t -> t.to() + " (" + t.name() + ")").distinct().toList();
    }
}
