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
    public static final Set<String> NAMES = Set.of("status", "health", "fsck", "hold-queue", "release-queue", "requeue-failed",
            "jobs", "batches", "help", "--help");
    static final String USAGE = """
            usage: java -jar ingest-queue.jar <command> [options]

            commands:
              status                         jobs and batches per state, holds
              health                         the service's health (exit 1 when DOWN)
              fsck [--repair]                consistency check (exit 1 when it found something)
              hold-queue | release-queue     stop / resume all work
              requeue-failed <batch id>      requeue every failed job of a batch
              jobs --state <s> [--batch <bid>] [--limit <n>]
              batches [--state <s>] [--limit <n>]

            options (or environment):
              --url <base URL>               INGEST_URL, default http://localhost:8080
              --user <user:password>         INGEST_USER (an admin for the actions)

            exit codes: 0 done, 1 refused or not clean, 2 usage, 3 service not reachable
            """;

    private Commands() {
    }

    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        List<String> rest = new ArrayList<>();
        String url = env.getOrDefault("INGEST_URL", "http://localhost:8080");
        String user = env.get("INGEST_USER");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--url" -> url = value(args, ++i);
                case "--user" -> user = value(args, ++i);
                default -> rest.add(args[i]);
            }
        }
        if (rest.isEmpty() || rest.get(0).equals("help") || rest.get(0).equals("--help") || url == null) {
            out.print(USAGE);
            return rest.isEmpty() || url == null ? 2 : 0;
        }
        ApiClient api = new ApiClient(url, user);
        try {
            return switch (rest.get(0)) {
                case "status" -> status(api, out);
                case "health" -> health(api, out);
                case "fsck" -> fsck(api, out, rest.contains("--repair"));
                case "hold-queue" -> action(api, out, "/api/queue/hold", "queue held");
                case "release-queue" -> action(api, out, "/api/queue/release", "queue released");
                case "requeue-failed" -> rest.size() < 2 ? usage(err, "requeue-failed needs a batch id") : requeueFailed(api, out, rest.get(1));
                case "jobs" -> option(rest, "--state") == null && option(rest, "--batch") == null
                        ? usage(err, "jobs needs --state or --batch") : jobs(api, out, rest);
                case "batches" -> batches(api, out, rest);
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

    private static int status(ApiClient api, PrintStream out) {
        JsonNode q = api.get("/api/queue");
        Table t = new Table("", "state", "count");
        q.get("jobs").fields().forEachRemaining(e -> t.row("jobs", e.getKey(), e.getValue().asText()));
        q.get("batches").fields().forEachRemaining(e -> t.row("batches", e.getKey(), e.getValue().asText()));
        t.print(out);
        JsonNode holds = q.get("holds");
        out.println("queue held: " + (holds.get("queue").asBoolean() ? "yes" : "no") + "; collections held: "
                + (holds.get("collections").isEmpty() ? "none" : holds.get("collections").toString()));
        return 0;
    }

    private static int health(ApiClient api, PrintStream out) {
        JsonNode h = api.getAnyStatus("/api/health");
        out.println(h.toPrettyString());
        return "UP".equals(h.path("status").asText()) ? 0 : 1;
    }

    private static int fsck(ApiClient api, PrintStream out, boolean repair) {
        JsonNode r = repair ? api.post("/api/fsck/repair") : api.get("/api/fsck");
        JsonNode v = r.get("violations");
        out.println(r.get("jobs").asText() + " jobs and " + r.get("batches").asText() + " batches checked: "
                + (v.isEmpty() ? "clean" : v.size() + " violation(s)"));
        if (!v.isEmpty()) {
            Table t = new Table("kind", "path", "repaired", "detail");
            v.forEach(x -> t.row(x.get("kind").asText(), x.get("path").asText(), x.get("repaired").asText(), x.get("detail").asText()));
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

    private static int action(ApiClient api, PrintStream out, String path, String done) {
        api.post(path);
        out.println(done);
        return 0;
    }

    private static int requeueFailed(ApiClient api, PrintStream out, String bid) {
        List<String> failed = new ArrayList<>();
        for (int offset = 0; ; ) {
            JsonNode page = api.get("/api/jobs?batch=" + enc(bid) + "&state=failed&limit=1000&offset=" + offset);
            page.get("jobs").forEach(j -> failed.add(j.path("job_id").asText()));
            if (!page.has("next_offset")) {
                break;
            }
            offset = page.get("next_offset").asInt();
        }
        int n = 0;
        for (String jid : failed) {
            api.post("/api/jobs/" + enc(jid) + "/requeue");
            out.println("requeued " + jid);
            n++;
        }
        out.println(n + " failed job(s) of " + bid + " requeued");
        return 0;
    }

    private static int jobs(ApiClient api, PrintStream out, List<String> args) {
        StringBuilder q = new StringBuilder("/api/jobs?limit=").append(limit(args));
        if (option(args, "--state") != null) {
            q.append("&state=").append(enc(option(args, "--state")));
        }
        if (option(args, "--batch") != null) {
            q.append("&batch=").append(enc(option(args, "--batch")));
        }
        Table t = new Table("job", "batch", "state", "priority", "error");
        api.get(q.toString()).get("jobs").forEach(j -> t.row(j.path("job_id").asText(), j.path("batch_id").asText(),
                j.has("damaged") ? "DAMAGED" : j.path("status").path("status").asText(), j.path("priority").asText(),
                j.has("damaged") ? j.get("damaged").asText() : j.path("status").path("error_message").asText("")));
        t.print(out);
        return 0;
    }

    private static int batches(ApiClient api, PrintStream out, List<String> args) {
        StringBuilder q = new StringBuilder("/api/batches?limit=").append(limit(args));
        if (option(args, "--state") != null) {
            q.append("&state=").append(enc(option(args, "--state")));
        }
        Table t = new Table("batch", "state", "submitter", "jobs", "completed", "failed");
        api.get(q.toString()).get("batches").forEach(b -> t.row(b.path("batch_id").asText(),
                b.has("damaged") ? "DAMAGED" : b.path("status").path("status").asText(), b.path("submission").path("submitter").asText(),
                b.path("jobs").path("total").asText(), b.path("jobs").path("completed").asText(), b.path("jobs").path("failed").asText()));
        t.print(out);
        return 0;
    }

    private static String limit(List<String> args) {
        String l = option(args, "--limit");
        return l == null ? "100" : enc(l);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Columns padded to their widest cell. */
    static final class Table {
        private final List<String[]> rows = new ArrayList<>();

        Table(String... header) {
            rows.add(header);
        }

        void row(String... cells) {
            rows.add(cells);
        }

        void print(PrintStream out) {
            int[] w = new int[rows.get(0).length];
            for (String[] r : rows) {
                for (int i = 0; i < r.length; i++) {
                    w[i] = Math.max(w[i], r[i] == null ? 0 : Math.min(80, r[i].length()));
                }
            }
            for (String[] r : rows) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < r.length; i++) {
                    String c = r[i] == null ? "" : r[i].length() > 80 ? r[i].substring(0, 77) + "..." : r[i];
                    b.append(i == 0 ? "" : "  ").append(i == r.length - 1 ? c : String.format("%-" + Math.max(1, w[i]) + "s", c));
                }
                out.println(b.toString().stripTrailing());
            }
        }
    }
}
