package org.cdlib.mrt.ingestqueue;

import java.util.Arrays;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.runtime.Demo;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;

/**
 * {@code java -jar ingest-queue.jar} runs the service; {@code java -jar ingest-queue.jar demo}
 * ingests a bundled sample batch on a throw-away queue and exits 0 when it completed;
 * {@code java -jar ingest-queue.jar hash-password} prints the PBKDF2 hash of a password for
 * {@code ingest.api.users}.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("demo")) {
            System.exit(Demo.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        if (args.length > 0 && args[0].equals("hash-password")) {
            System.exit(org.cdlib.mrt.ingestqueue.api.Passwords.main());
        }
        if (args.length > 0) {
            System.err.println("usage: java -jar ingest-queue.jar [demo | hash-password]   (configure with application.properties or -Dkey=value)");
            System.exit(2);
        }
        new IngestService(Map.of()).run();
    }
}
