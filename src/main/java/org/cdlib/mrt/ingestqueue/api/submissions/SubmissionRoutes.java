package org.cdlib.mrt.ingestqueue.api.submissions;

import static io.vertx.core.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.auth.Guard;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.Answers;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.http.PostedForm;
import org.cdlib.mrt.ingestqueue.api.http.Routes;
import org.cdlib.mrt.ingestqueue.api.reads.BatchFilters;
import org.cdlib.mrt.ingestqueue.api.reads.ReadRoutes;
import org.cdlib.mrt.ingestqueue.fetch.UploadMark;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueBusyException;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.cdlib.mrt.ingestqueue.text.Text;

/**
 * Submitting a batch: Merritt's poster form (answered with Merritt's batch state, XML or JSON)
 * and the JSON body of {@code POST /api/batches} (answered with the new batch's view).
 */
public final class SubmissionRoutes {
    private final QueueStore store;
    private final Submissions submissions;
    private final ReadRoutes reads;

    public SubmissionRoutes(QueueStore store, Submissions submissions, ReadRoutes reads) {
        this.store = store;
        this.submissions = submissions;
        this.reads = reads;
    }

    public void register(Routes api) {
        for (String p : List.of("/poster/submit", "/poster/add", "/poster/update")) {
            api.add(POST, p, Access.SUBMITTER, "Submit a batch (Merritt form)", this::poster);
        }
        for (String p : List.of("/poster/submit", "/poster/add", "/poster/update")) {
            api.add(POST, p + "/ark/:naan/:name", Access.SUBMITTER,
                    "Submit a batch (Merritt form), the primary id in the path",
                    this::poster);
        }
        api.add(POST, "/api/batches", Access.SUBMITTER, "Submit a batch (JSON)", QueueLimits.JSON_BODY_BYTES,
                this::submitJson);
    }

    private void poster(RoutingContext rc) {
        String mode = rc.request().path().startsWith("/poster/update") ? "update" : "add";
        String pathArk = rc.pathParam("naan") == null ? null : "ark:/" + rc.pathParam("naan") + "/"
                + rc.pathParam("name");
        ApiUsers.User user = rc.get("user");
        PostedForm posted = PostedForm.of(rc);
        MultiMap form = posted.fields();
        InputChecks.formText(form, Submissions.fieldNames());
        InputChecks.text("primaryIdentifier (the ARK in the path)", pathArk);
        BatchSubmission s = submissions.fromForm(form, posted.files(), mode, user, pathArk);
        String bid = create(rc, s);
        auditOnBehalf(user, s, bid);
        UploadMark.write(store.ingestHome(), s.payloadUrl(), bid);
        rc.response().putHeader("BID", bid);
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("bat:batchID", bid);
        state.put("bat:batchStatus", "QUEUED");
        state.put("bat:updateFlag", "update".equals(s.submissionMode()));
        state.put("bat:submissionDate", s.submitted());
        state.put("bat:userAgent", s.submitter());
        state.put("bat:profile", s.profileName());
        if ("json".equals(s.responseForm())) {
            Answers.json(rc, 200, Map.of("bat:batchState", state));
        } else {
            StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    + "<bat:batchState xmlns:bat=\"http://uc3.cdlib.org/ontology/mrt/ingest/batch\">\n");
            state.forEach((k, v) -> x.append("  <").append(k).append('>').append(xml(String.valueOf(v))).append("</")
                    .append(k).append(">\n"));
            rc.response().setStatusCode(200).putHeader("Content-Type", "application/xml; charset=UTF-8")
                    .end(x.append("</bat:batchState>\n").toString());
        }
    }

    @SuppressWarnings("unchecked")
    private void submitJson(RoutingContext rc) {
        JsonNode json;
        try {
            json = Answers.JSON.readTree(Answers.text(rc));
        } catch (Exception e) {
            throw new ApiError(400, "the body is not a JSON object: " + e.getMessage().split("\n")[0]);
        }
        if (json == null || !json.isObject()) {
            throw new ApiError(400, "the body is not a JSON object but " + (json == null || json.isMissingNode()
                    ? "empty"
                    : json.isNull() ? "null" : "a JSON " + json.getNodeType().name().toLowerCase(Locale.ROOT))
                    + ": send the submission's fields as one object, e.g. {\"profile\": ..., \"payload_url\": ...}");
        }
        InputChecks.jsonTypes(json, Submissions.JSON_TEXT);
        InputChecks.jsonTypes(json, List.of("payload_url"));
        InputChecks.jsonText(json, Submissions.JSON_TEXT);
        Map<String, Object> body = Answers.JSON.convertValue(json, Map.class);
        ApiUsers.User user = rc.get("user");
        BatchSubmission submission = submissions.fromJson(body, user);
        String bid = create(rc, submission);
        auditOnBehalf(user, submission, bid);
        UploadMark.write(store.ingestHome(), submission.payloadUrl(), bid);
        rc.response().putHeader("BID", bid).putHeader("Location", "/api/batches/" + bid);
        Answers.json(rc, 201, reads.batch(bid));
    }

    /**
     * The batch, or the refusal: a submission the queue cannot take now (the counter busy, the
     * queue full) keeps no upload, and a busy counter asks the client to send again shortly.
     */
    private String create(RoutingContext rc, BatchSubmission s) {
        try {
            return store.batches().create(s);
        } catch (RuntimeException e) {
            submissions.discard(s.payloadUrl());
            if (e instanceof QueueBusyException) {
                rc.response().putHeader("Retry-After", String.valueOf(QueueBusyException.RETRY_AFTER_SECONDS));
            }
            throw e;
        }
    }

    /** A poster's batch is owned by the user it names; who posted it is kept in the audit log. */
    private static void auditOnBehalf(ApiUsers.User user, BatchSubmission s, String bid) {
        if (!BatchFilters.ownedBy(s.submitter(), user.name())) {
            Guard.AUDIT.info("user={} action=\"submit\" target=bid={} result=ok status=200 on_behalf_of={}",
                    user.name(), bid,
                    Text.quoted(s.submitter()));
        }
    }

    /** Merritt's XML answer is XML 1.0 whatever a field holds (a neighbour's batch is not checked at our door). */
    private static String xml(String s) {
        return Text.xml(s);
    }
}
