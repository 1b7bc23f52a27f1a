package org.cdlib.mrt.ingestqueue.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operator's command line, in the service's jar: {@code java -jar ingest-queue.jar status}
 * and the others below, speaking to a running service's API. Readable tables; exit codes 0 done
 * (or clean), 1 refused or not clean, 2 usage, 3 the service cannot be reached.
 */
public final class Commands {
    public static final Set<String> NAMES = Set.of(
            "status",
            "health",
            "fsck",
            "hold-queue",
            "release-queue",
            "requeue-failed",
            "jobs",
            "batches",
            "job",
            "batch",
            "search",
            "hold",
            "release",
            "requeue",
            "delete",
            "unlock",
            "help",
            "--help");
    static final String USAGE = """
        usage: java -jar ingest-queue.jar <command> [options]

        commands:
          status                         jobs and batches per state, holds
          health                         the service's health (exit 1 when DOWN)
          fsck [--repair]                consistency check (exit 1 when it found something)
          hold-queue | release-queue     stop / resume all work
          requeue-failed <batch id>      requeue every failed job of a batch (= requeue <batch id>)
          jobs --state <s> [--batch <bid>] [--limit <n>]   (states: pending ... notify, held, failed, completed)
          batches [--state <s>] [--limit <n>]
          job <job id>                   one job: its fields and its history (the last 20 transitions)
          batch <batch id>               one batch: its state, submission and jobs counted
          search [<text>] [--submitter <s>] [--from <date>] [--to <date>]
                                         jobs and batches by id, local id, ARK, title words, submitter or the
                                         dates they last changed (finished); open work and history alike
          hold | release <job or batch id>
          requeue <job or batch id>      a failed job; a batch: every failed job of it
          delete <job or batch id> [--confirm]
                                         a failed or held job (--confirm when its batch is still open),
                                         a failed or held batch with its jobs
          unlock <job id> [--confirm]    break the lock a stuck host holds (asks for --confirm)

        options (or environment):
          --url <base URL>               INGEST_URL, default http://localhost:8080
          --user <user:password>         INGEST_USER (an admin for the actions)
          --json                         the service's JSON answer instead of tables (for scripts)

        exit codes: 0 done, 1 refused or not clean, 2 usage, 3 service not reachable
        """;

    private Commands() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        List<String> rest = new ArrayList<>();
        String url = env.getOrDefault("INGEST_URL", "http://localhost:8080");
        String user = env.get("INGEST_USER");
        boolean json = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--url" -> url = value(args, ++i);
                case "--user" -> user = value(args, ++i);
                case "--json" -> json = true;
                default -> rest.add(args[i]);
            }
        }
        if (rest.isEmpty() || rest.get(0).equals("help") || rest.get(0).equals("--help") || url == null) {
            out.print(USAGE);
            return rest.isEmpty() || url == null ? 2 : 0;
        }
        ApiClient api = new ApiClient(url, user);
        Output o = new Output(out, json);
        ItemCommands items = new ItemCommands(api, o);
        String id = rest.size() > 1 ? rest.get(1) : null;
        try {
            return switch (rest.get(0)) {
                case "status" -> status(api, o);
                case "health" -> health(api, o);
                case "fsck" -> fsck(api, o, rest.contains("--repair"));
                case "hold-queue" -> action(api, o, "/api/queue/hold", "queue held");
                case "release-queue" -> action(api, o, "/api/queue/release", "queue released");
                case "requeue-failed" ->
                    id == null ? usage(err, "requeue-failed needs a batch id") : items.requeueFailed(id);
                case "jobs" ->
                    option(rest, "--state") == null && option(rest, "--batch") == null
                            ? usage(err, "jobs needs --state or --batch")
                            : jobs(api, o, rest);
                case "batches" -> batches(api, o, rest);
                case "job" ->
                    id == null || !ItemCommands.isJob(id) ? usage(err, "job needs a job id (jid…)") : items.job(id);
                case "batch" ->
                    id == null || !ItemCommands.isBatch(id) ? usage(err, "batch needs a batch id (bid…)")
                            : items.batch(id);
                case "search" -> search(api, o, rest);
                case "hold", "release", "requeue", "delete" ->
                    id == null || !ItemCommands.isJob(id) && !ItemCommands.isBatch(id)
                            ? usage(err, rest.get(0) + " needs a job id (jid…) or a batch id (bid…)")
                            : items.act(rest.get(0), id, rest.contains("--confirm"));
                case "unlock" ->
                    id == null || !ItemCommands.isJob(id)
                            ? usage(err, "unlock needs a job id (jid…)")
                            : items.unlock(id, rest.contains("--confirm"));
                default -> usage(err, "unknown command '" + rest.get(0) + "'");
            };
        } catch (ApiClient.Refused e) {
            err.println(e.getMessage());
            return 1;
        } catch (ApiClient.Unreachable e) {
            err.println(e.getMessage());
            return 3;
        }
    }

    private static String value(String[] args, int i) {
        return i < args.length ? args[i] : null;
    }

    static String option(List<String> args, String name) {
        int i = args.indexOf(name);
        return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : null;
    }

    private static int usage(PrintStream err, String problem) {
        err.println(problem);
        err.print(USAGE);
        return 2;
    }

    /** Where a command's answer goes: a table for people, or the service's JSON as it came (--json). */
    record Output(PrintStream out, boolean json) {
        /** With --json, the answer and true: the caller prints no table. */
        boolean asJson(JsonNode answer) {
            if (json) {
                out.println(answer.toPrettyString());
            }
            return json;
        }
    }

    private static int status(ApiClient api, Output o) {
        PrintStream out = o.out();
        JsonNode q = api.get("/api/queue");
        if (o.asJson(q)) {
            return 0;
        }
        Table t = new Table("", "state", "count");
        q.get("jobs").fields().forEachRemaining(e -> t.row("jobs", e.getKey(), e.getValue().asText()));
        q.get("batches").fields().forEachRemaining(e -> t.row("batches", e.getKey(), e.getValue().asText()));
        // open jobs by what happens to them: a worker has it (active), or not yet (waiting), or held
        q.path("work").fields().forEachRemaining(e -> t.row("open jobs", e.getKey(), e.getValue().asText()));
        t.print(out);
        JsonNode holds = q.get("holds");
        out.println("queue held: " + (holds.get("queue").asBoolean() ? "yes" : "no") + "; collections held: "
                + (holds.get("collections").isEmpty() ? "none" : holds.get("collections").toString()));
        return 0;
    }

    private static int health(ApiClient api, Output o) {
        JsonNode h = api.getAnyStatus("/api/health");
        o.out().println(h.toPrettyString());
        return "UP".equals(h.path("status").asText()) ? 0 : 1;
    }

    private static int fsck(ApiClient api, Output o, boolean repair) {
        PrintStream out = o.out();
        JsonNode r = repair ? api.post("/api/fsck/repair") : api.get("/api/fsck");
        JsonNode v = r.get("violations");
        if (o.asJson(r)) {
            return v.isEmpty() || repair && allRepaired(v) ? 0 : 1;
        }
        out.println(r.get("jobs").asText() + " jobs and " + r.get("batches").asText() + " batches checked: "
                + (v.isEmpty() ? "clean" : v.size() + " violation(s)"));
        if (!v.isEmpty()) {
            Table t = new Table("kind", "path", "repaired", "detail");
            v.forEach(x -> t.row(
                    x.get("kind").asText(),
                    x.get("path").asText(),
                    x.get("repaired").asText(),
                    x.get("detail").asText()));
            t.print(out);
        }
        JsonNode n = r.path("notices");
        if (!n.isEmpty()) {
            // not the queue's inconsistency (the exit code ignores them): ARKs to remove at the minter
            out.println(n.size() + " notice(s): ARKs a job may have left unused at the minter");
            Table t = new Table("kind", "path", "detail");
            n.forEach(x -> t.row(x.get("kind").asText(), x.get("path").asText(), x.get("detail").asText()));
            t.print(out);
        }
        return v.isEmpty() || repair && allRepaired(v) ? 0 : 1;
    }

    private static boolean allRepaired(JsonNode v) {
        for (JsonNode x : v) {
            if (!x.get("repaired").asBoolean()) {
                return false;
            }
        }
        return true;
    }

    private static int action(ApiClient api, Output o, String path, String done) {
        if (!o.asJson(api.post(path))) {
            o.out().println(done);
        }
        return 0;
    }

    private static int jobs(ApiClient api, Output o, List<String> args) {
        StringBuilder q = new StringBuilder("/api/jobs?limit=").append(limit(args));
        if (option(args, "--state") != null) {
            q.append("&state=").append(enc(option(args, "--state")));
        }
        if (option(args, "--batch") != null) {
            q.append("&batch=").append(enc(option(args, "--batch")));
        }
        JsonNode answer = api.get(q.toString());
        if (o.asJson(answer)) {
            return 0;
        }
        Table t = new Table("job", "batch", "state", "priority", "error");
        answer.get("jobs").forEach(j -> t.row(j.path("job_id").asText(), j.path("batch_id").asText(),
                j.has("damaged") ? "DAMAGED" : j.path("status").path("status").asText(), j.path("priority").asText(),
                j.has("damaged") ? j.get("damaged").asText() : j.path("status").path("error_message").asText("")));
        t.print(o.out());
        return 0;
    }

    private static int batches(ApiClient api, Output o, List<String> args) {
        StringBuilder q = new StringBuilder("/api/batches?limit=").append(limit(args));
        if (option(args, "--state") != null) {
            q.append("&state=").append(enc(option(args, "--state")));
        }
        JsonNode answer = api.get(q.toString());
        if (o.asJson(answer)) {
            return 0;
        }
        // the README's words: open jobs (held ones too); rate, an open batch's own (jobs completed a minute, last 15
        // minutes) or a finished one's mean
        Table t = new Table("batch", "state", "submitter", "jobs", "completed", "failed", "open", "rate/min");
        answer.get("batches")
                .forEach(b -> t.row(
                        b.path("batch_id").asText(),
                        b.has("damaged")
                                ? "DAMAGED"
                                : b.path("status").path("status").asText(),
                        b.path("submission").path("submitter").asText(),
                        b.path("jobs").path("total").asText(),
                        b.path("jobs").path("completed").asText(),
                        b.path("jobs").path("failed").asText(),
                        b.path("jobs").path("processing").asText(""),
                        ItemCommands.rate(b, b.path("progress"))));
        t.print(o.out());
        return 0;
    }

    /**
     * Every page of the search, followed as the dashboard's "more" does, up to {@code --limit}
     * results (100): each page of the service's search is bounded, so is the number of pages.
     */
    private static int search(ApiClient api, Output o, List<String> args) {
        String text = args.size() > 1 && !args.get(1).startsWith("--") ? args.get(1) : null;
        StringBuilder q = new StringBuilder("/api/search?");
        for (String[] p : new String[][] {{"q", text}, {"submitter", option(args, "--submitter")},
                {"from", option(args, "--from")}, {"to", option(args, "--to")}}) {
            if (p[1] != null) {
                q.append(p[0]).append('=').append(enc(p[1])).append('&');
            }
        }
        int limit;
        try {
            limit = Integer.parseInt(limit(args));
        } catch (NumberFormatException e) {
            throw new ApiClient.Refused("--limit must be a whole number, got '" + option(args, "--limit") + "'");
        }
        Table t = new Table("kind", "id", "batch", "matched", "state", "title");
        List<JsonNode> pages = new ArrayList<>();
        int found = 0;
        String next = q.toString();
        for (int page = 0; next != null && found < limit && page < 20; page++) {
            JsonNode answer = api.get(next);
            pages.add(answer);
            for (JsonNode r : answer.path("results")) {
                if (found++ < limit) {
                    t.row(r.path("kind").asText(), r.path("id").asText(), r.path("batch_id").asText(),
                            r.path("matched").asText(), r.path("state").asText(""), r.path("title").asText(""));
                }
            }
            if (answer.hasNonNull("incomplete")) {
                o.out().println(answer.get("incomplete").asText());
            }
            next = answer.hasNonNull("next") ? answer.get("next").asText() : null;
        }
        if (o.json()) {
            pages.forEach(o::asJson);
            return 0;
        }
        t.print(o.out());
        return 0;
    }

    private static String limit(List<String> args) {
        String l = option(args, "--limit");
        return l == null ? "100" : enc(l);
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
