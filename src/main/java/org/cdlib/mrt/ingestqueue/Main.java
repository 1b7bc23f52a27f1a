package org.cdlib.mrt.ingestqueue;

import java.util.Arrays;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.auth.Passwords;
import org.cdlib.mrt.ingestqueue.cli.Commands;
import org.cdlib.mrt.ingestqueue.config.StartupException;
import org.cdlib.mrt.ingestqueue.runtime.Demo;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;

/**
 * {@code java -jar ingest-queue.jar} runs the service; {@code java -jar ingest-queue.jar demo}
 * ingests a bundled sample batch on a throw-away queue and exits 0 when it completed;
 * {@code java -jar ingest-queue.jar hash-password} prints the PBKDF2 hash of a password for
 * {@code ingest.api.users}; the operator's commands ({@code status}, {@code fsck}, ... see
 * {@code --help}) speak to a running service's API.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("demo")) {
            System.exit(Demo.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        if (args.length > 0 && args[0].equals("hash-password")) {
            System.exit(Passwords.main());
        }
        // a command, or the command line's options before it (--json, --url, --user)
        if (args.length > 0 && (Commands.NAMES.contains(args[0]) || args[0].startsWith("--"))) {
            System.exit(Commands.run(args, System.out, System.err, System.getenv()));
        }
        if (args.length > 0) {
            System.err.println(
                    "usage: java -jar ingest-queue.jar [demo | hash-password | status | health | fsck | hold-queue | "
                    + "release-queue | requeue-failed <bid> | jobs | batches | job <jid> | hold | release | requeue | "
                    + "delete <jid or bid> | unlock <jid> | --help]   (configure with application.properties or "
                    + "-Dkey=value)");
            System.exit(2);
        }
        try {
            new IngestService(Map.of()).run();
        } catch (Exception e) {
            System.err.println("ingest-queue cannot start: " + startupReason(e));
            System.exit(1);
        }
    }

    /** The innermost message of a start-up failure (camel-main wraps it). */
    static String startupReason(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            if (t instanceof StartupException) {
                break;
            }
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }
}
