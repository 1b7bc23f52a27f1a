package org.cdlib.mrt.ingestqueue.api;

import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.FileUpload;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.file.Path;
import java.util.List;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.Endpoint;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.http.PostedForm;
import org.cdlib.mrt.ingestqueue.api.submissions.UploadQuota;

/**
 * How much of a POST body is read: a route's own small limit in memory, else an upload (to
 * disk) within ingest.api.max-upload and what the user's quota leaves; and what a 413 says. With the
 * server, not in {@code http}: how much is read depends on who asks (auth) and their quota (submissions).
 */
final class RequestBodies {
    private final long maxUpload;
    private final Path uploadsTmp;
    private final UploadQuota quota;
    private final MultipartBodies multipart;

    RequestBodies(long maxUpload, Path uploadsTmp, UploadQuota quota) {
        this.maxUpload = maxUpload;
        this.uploadsTmp = uploadsTmp;
        this.quota = quota;
        this.multipart = new MultipartBodies(uploadsTmp);
    }

    /** Puts the reading of the endpoint's body on its route (a route that is not POST reads none). */
    void read(Route route, Endpoint e) {
        if (e.method() == HttpMethod.POST && e.bodyLimit() > 0) {
            long limit = maxUpload > 0 ? Math.min(e.bodyLimit(), maxUpload) : e.bodyLimit();
            // a body declared larger is refused before it is read; one sent in chunks as soon as it grows past the
            // limit
            route.handler(BodyHandler.create(false).setBodyLimit(limit));
            route.failureHandler(rc -> {
                if (rc.statusCode() != 413) {
                    rc.next();
                    return;
                }
                String length = rc.request().getHeader("Content-Length");
                Answers.fail(rc, 413, "the body is " + (length != null && length.matches("\\d{1,19}") ? length
                        : "more than " + limit)
                        + " bytes; " + e.method() + " " + e.path() + " takes at most " + limit + " bytes", List.of());
            });
        } else if (e.method() == HttpMethod.POST) {
            // bounded by ingest.api.max-upload and what the user's quota leaves
            route.handler(this::uploadBody);
            route.handler(this::chargeNamedUser);
        }
    }

    /**
     * Reads an upload's body within ingest.api.max-upload and the user's remaining quota. A
     * poster's upload is for the user its form names, known once the body is read: it is read
     * within what one user may upload at most, and counted for that user after ({@link #chargeNamedUser}).
     */
    private void uploadBody(RoutingContext rc) {
        long limit = maxUpload;
        ApiUsers.User u = rc.get("user");
        boolean poster = u != null && u.has("poster");
        long left = u == null ? Long.MAX_VALUE : poster ? (quota.limit() > 0 ? quota.limit() : Long.MAX_VALUE)
                : quota.left(u.name());
        if (left < limit || limit <= 0) {
            limit = limit <= 0 ? left : Math.min(limit, left);
        }
        rc.put("bodyLimit", limit);
        // a body declared larger than the limit is refused by the body handler before it is read (413)
        if (u != null && quota.limit() > 0 && !poster) {
            rc.addEndHandler(done -> quota.add(u.name(), rc.request().bytesRead()));
        }
        if (MultipartBodies.multipart(rc)) {
            multipart.read(rc, limit);
            return;
        }
        BodyHandler.create(uploadsTmp.toString()).setBodyLimit(limit == Long.MAX_VALUE ? -1 : limit)
                .setDeleteUploadedFilesOnEnd(true).setHandleFileUploads(true).handle(rc);
    }

    /**
     * A poster's upload, read: counted for the user the form's {@code submitter} names (the poster's
     * own account when it names nobody), or refused with 413 when that user's allowance is spent,
     * the upload not kept. (Whether the poster may name that user is the submission's to check.)
     */
    private void chargeNamedUser(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        PostedForm form = PostedForm.of(rc);
        long bytes = form.files().stream().mapToLong(FileUpload::size).sum();
        if (u == null || !u.has("poster") || quota.limit() <= 0 || bytes == 0) {
            rc.next();
            return;
        }
        String account = UploadQuota.account(form.fields().get("submitter"), u.name());
        if (!quota.take(account, bytes)) {
            Answers.fail(rc, 413, "user '" + InputChecks.printable(account) + "' (for whom '" + u.name()
                    + "' posts) may upload "
                    + quota.limit() + " bytes per " + quota.window() + " (ingest.api.max-upload-per-user); "
                    + quota.left(account) + " bytes are left and this upload is " + bytes + " bytes", List.of());
            return;
        }
        rc.next();
    }

    /** The 413's message: the request limit, or the user's quota when that is what is short. */
    String tooLarge(RoutingContext rc) {
        ApiUsers.User u = rc.get("user");
        if (u != null && u.has("poster")) {
            long most = quota.limit() > 0 && (maxUpload <= 0 || quota.limit() < maxUpload) ? quota.limit() : maxUpload;
            return most == maxUpload ? "the request is larger than ingest.api.max-upload (" + maxUpload + " bytes)"
                    : "the upload is larger than one user may upload per " + quota.window()
                    + " (ingest.api.max-upload-per-user, "
                    + quota.limit() + " bytes)";
        }
        long left = u == null ? Long.MAX_VALUE : quota.left(u.name());
        if (u != null && quota.limit() > 0 && (maxUpload <= 0 || left < maxUpload)) {
            return "user '" + u.name() + "' may upload " + quota.limit() + " bytes per " + quota.window()
                    + " (ingest.api.max-upload-per-user); " + left + " bytes are left";
        }
        return "the request is larger than ingest.api.max-upload (" + maxUpload + " bytes)";
    }

    /**
     * The refusal of a form field over {@link HttpApi#MAX_FORM_ATTRIBUTE_BYTES}: Netty's (of an urlencoded form, or
     * of a field it cannot buffer) or the multipart decoder's ({@link FormDecoder}).
     */
    static boolean formFieldTooLarge(Throwable t) {
        return t instanceof HttpPostRequestDecoder.TooLongFormFieldException || t instanceof FormDecoder.FieldTooLarge
                || t != null && String.valueOf(t.getMessage()).contains("Size exceed allowed maximum capacity");
    }

    /**
     * An upload Vert.x aborted while it was streamed to disk: when a form field after the file is
     * too large, the body handler cancels the upload, and depending on timing the failure that
     * reaches the route is this ("Streaming aborted"), not the field's (seen in CI); a client that
     * cut the upload off ends the same way. Either way it is the request's fault: 400, not 500.
     */
    static boolean uploadAborted(RoutingContext rc) {
        Throwable t = rc.failure();
        boolean multipart = String.valueOf(rc.request().getHeader("Content-Type")).startsWith("multipart/");
        return t != null && ("Streaming aborted".equals(t.getMessage()) || t instanceof IllegalStateException
                && "File handle is closed".equals(t.getMessage()))
                // the cancelled upload's own failure, which Vert.x swallowed
                || multipart && t == null && rc.statusCode() == 500;
    }
}
