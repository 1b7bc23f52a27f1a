package org.cdlib.mrt.ingestqueue.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The service's own logging configuration ({@code src/main/resources/logback.xml}, loaded into a
 * context of its own) writes one line per event whatever a message holds, and no URL's password.
 */
class LogLinesTest {
    @Test
    void aFieldHoldingLineBreaksCannotForgeALineAndAUrlsPasswordIsNotWritten() throws Exception {
        for (String config : List.of("src/main/resources/logback.xml", "src/test/resources/logback-test.xml")) {
            LoggerContext context = new LoggerContext();
            context.setMDCAdapter(new LogbackMDCAdapter());
            JoranConfigurator joran = new JoranConfigurator();
            joran.setContext(context);
            joran.doConfigure(Path.of(config).toFile());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            OutputStreamAppender<?> stdout = (OutputStreamAppender<?>)
                    context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDOUT");
            stdout.setOutputStream(out);
            String forged =
                    "sam\r\n2026-01-01T00:00:00.000Z INFO  [vert.x-eventloop-thread-0] ingestqueue.audit - user=admin "
                            + "action=\"DELETE /api/jobs/jid0000000001\" target=- result=ok status=200\u2028\u0000";
            context.getLogger("ingestqueue.transitions")
                    .info(
                            "batch {}: pending -> failed: submitter {} from {}",
                            "bid0000000001",
                            forged,
                            "https://alice:s3cr3t@127.0.0.2/a.txt");
            context.getLogger("ingestqueue.audit")
                    .info("user={} action=\"submit\" on_behalf_of={}", "ui", Text.quoted(forged));
            context.stop();
            String written = out.toString(StandardCharsets.UTF_8);
            List<String> lines = written.lines().toList();
            assertEquals(2, lines.size(), config + ": one line per event:\n" + written + "\n"
                    + context.getStatusManager().getCopyOfStatusList());
            assertTrue(lines.get(0).contains("submitter sam\\r\\n2026-01-01T00:00:00.000Z INFO"), lines.get(0));
            assertTrue(
                    lines.get(0).endsWith("status=200\\u2028\\u0000 from https://***@127.0.0.2/a.txt"), lines.get(0));
            assertFalse(written.contains("s3cr3t"), written);
            assertTrue(lines.stream().noneMatch(l -> l.startsWith("2026-01-01")), written);
        }
    }
}
