package org.cdlib.mrt.ingestqueue.cli;

import static org.cdlib.mrt.ingestqueue.cli.Commands.enc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The commands on one job or one batch, each one call of the admin API the dashboard uses: a job's
 * fields and history; hold, release, requeue, delete of a job ({@code jid…}) or a batch
 * ({@code bid…}); breaking a stuck lock. A refusal (wrong state, unknown id, confirmation needed)
 * is the service's message and exit code 1.
 */
final class ItemCommands {
    private final ApiClient api;
    private final Commands.Output o;

    ItemCommands(ApiClient api, Commands.Output o) {
        this.api = api;
        this.o = o;
    }

    static boolean isJob(String id) {
        return id.startsWith("jid");
    }

    static boolean isBatch(String id) {
        return id.startsWith("bid");
    }

    int job(String jid) {
        JsonNode j = api.get("/api/jobs/" + enc(jid));
        if (o.asJson(j)) {
            return 0;
        }
        PrintStream out = o.out();
        JsonNode st = j.path("status");
        JsonNode c = j.path("configuration");
        Table fields = new Table("job", j.path("job_id").asText());
        fields.row("batch", j.path("batch_id").asText());
        fields.row("state", st.path("status").asText() + (st.hasNonNull("last_successful_status")
                ? " (last successful: " + st.get("last_successful_status").asText() + ")" : ""));
        fields.row("priority", j.path("priority").asText());
        fields.row("modified", st.path("last_modification_date").asText());
        fields.row("retries", st.path("retry_count").asText());
        fields.row("error", st.path("error_message").asText(""));
        fields.row("ark", j.path("identifiers").path("primary").asText(""));
        fields.row("local ids", text(j.path("identifiers").path("local_id")));
        fields.row("profile", c.path("profile_name").asText(""));
        fields.row("payload", c.path("payload_url").asText(""));
        // a lock is a worker holding the job: it is active (README, glossary)
        fields.row("lock", j.path("lock").isNull() ? "" : "active: " + text(j.path("lock")));
        fields.print(out);
        out.println();
        Table history = new Table("at", "from", "to", "by", "reason");
        st.path("history")
                .forEach(h -> history.row(
                        h.path("at").asText(),
                        h.path("from").asText("created"), // as the dashboard names a first entry
                        h.path("to").asText(),
                        h.path("by").asText(""),
                        h.path("reason").asText("")));
        history.print(out);
        return 0;
    }

    /** One batch, from the queue or (finished) from history: as the dashboard's batch page reads it. */
    int batch(String bid) {
        JsonNode b = api.get("/api/batches/" + enc(bid));
        if (o.asJson(b)) {
            return 0;
        }
        JsonNode st = b.path("status");
        JsonNode sub = b.path("submission");
        JsonNode jobs = b.path("jobs");
        Table fields = new Table("batch", b.path("batch_id").asText());
        fields.row("state", st.path("status").asText() + (st.hasNonNull("error_message")
                ? ": " + st.get("error_message").asText() : ""));
        fields.row("title", sub.path("erc_what").asText(""));
        fields.row("submitter", sub.path("submitter").asText(""));
        fields.row("profile", sub.path("profile_name").asText(""));
        fields.row("submitted", sub.path("submitted").asText(""));
        fields.row("modified", st.path("last_modified").asText(""));
        fields.row("jobs", jobs.path("total").asText() + " (" + jobs.path("completed").asText() + " completed, "
                + jobs.path("failed").asText() + " failed)");
        JsonNode p = b.path("progress");
        JsonNode open = p.path("jobs");
        if (open.has("active")) {
            fields.row("open jobs", open.path("active").asText() + " active, " + open.path("waiting").asText()
                    + " waiting, " + open.path("held").asText() + " held");
        }
        fields.row("rate", rate(b, p));
        fields.row("hold", p.path("hold_note").asText(""));
        fields.row("estimate", estimate(p));
        fields.row("priority", p.path("priority_note").asText(""));
        fields.print(o.out());
        return 0;
    }

    /**
     * A batch's rate in the README's words: an open batch's own (jobs completed a minute over the last 15 minutes),
     * a finished one's mean; empty when the answer has neither. Never the queue's rate.
     */
    static String rate(JsonNode batch, JsonNode progress) {
        JsonNode mean = either(progress, batch, "mean_per_minute");
        if (mean.isNumber()) {
            return mean.asText() + " mean";
        }
        JsonNode own = either(progress, batch, "rate_per_minute");
        return own.isNumber() ? own.asText() + " (last 15 min)" : "";
    }

    private static JsonNode either(JsonNode first, JsonNode then, String field) {
        return first.has(field) ? first.get(field) : then.path(field);
    }

    /** When the batch's last job should complete, with its range; or why there is no estimate. */
    static String estimate(JsonNode p) {
        if (!p.hasNonNull("estimated_completion")) {
            return p.path("estimate_note").asText("");
        }
        JsonNode r = p.path("estimate_range");
        return p.get("estimated_completion").asText() + (r.has("earliest") && r.has("latest")
                ? " (" + r.get("earliest").asText() + " … " + r.get("latest").asText() + ")" : "")
                + (p.has("estimate_basis") ? "; " + p.get("estimate_basis").asText() : "");
    }

    /** hold, release, requeue or delete of a job or a batch; a batch's requeue is that of its failed jobs. */
    int act(String action, String id, boolean confirm) {
        if (isBatch(id) && action.equals("requeue")) {
            return requeueFailed(id);
        }
        String path = (isJob(id) ? "/api/jobs/" : "/api/batches/") + enc(id) + "/" + action
                + (confirm && isJob(id) && action.equals("delete") ? "?confirm=true" : "");
        JsonNode answer = confirmed(path, action.equals("delete") && isJob(id));
        if (!o.asJson(answer)) {
            String state = answer.path("status").path("status").asText("");
            o.out()
                    .println((isJob(id) ? "job " : "batch ") + id + ": " + pastTense(action)
                            + (state.isEmpty() ? "" : ", now " + state));
        }
        return 0;
    }

    int unlock(String jid, boolean confirm) {
        JsonNode answer = confirmed("/api/jobs/" + enc(jid) + "/unlock" + (confirm ? "?confirm=true" : ""), true);
        if (!o.asJson(answer)) {
            o.out().println("job " + jid + ": lock of " + answer.path("held_by").asText() + " broken");
        }
        return 0;
    }

    /** Every failed job of the batch requeued, a thousand a call; exit 1 when some could not be. */
    int requeueFailed(String bid) {
        List<String> requeued = new ArrayList<>();
        ArrayNode refused = JsonNodeFactory.instance.arrayNode();
        JsonNode answer;
        do {
            answer = api.post("/api/batches/" + enc(bid) + "/requeue-failed");
            answer.path("requeued").forEach(j -> requeued.add(j.asText()));
            refused.addAll((ArrayNode) answer.withArray("refused"));
        } while (answer.path("left").asInt() > 0 && answer.path("requeued").size() > 0);
        ObjectNode all = JsonNodeFactory.instance.objectNode().put("batch_id", bid);
        requeued.forEach(all.putArray("requeued")::add);
        all.set("refused", refused);
        if (!o.asJson(all)) {
            requeued.forEach(j -> o.out().println("requeued " + j));
            refused.forEach(r -> o.out()
                    .println("not requeued " + r.path("job_id").asText() + ": "
                            + r.path("error").asText()));
            o.out().println(requeued.size() + " failed job(s) of " + bid + " requeued");
        }
        return refused.isEmpty() ? 0 : 1;
    }

    /** A refusal asking for confirmation says how to give it here. */
    private JsonNode confirmed(String path, boolean confirmable) {
        try {
            return api.post(path);
        } catch (ApiClient.Refused e) {
            throw confirmable && e.getMessage().contains("confirm") && !path.contains("confirm=true")
                    ? new ApiClient.Refused(e.getMessage() + " (add --confirm)") : e;
        }
    }

    private static String pastTense(String action) {
        return switch (action) {
            case "hold" -> "held";
            case "release" -> "released";
            case "requeue" -> "requeued";
            default -> "deleted";
        };
    }

    private static String text(JsonNode n) {
        if (n.isArray()) {
            List<String> parts = new ArrayList<>();
            n.forEach(x -> parts.add(x.asText()));
            return String.join("; ", parts);
        }
        return n.isValueNode() ? n.asText() : n.toString();
    }
}
