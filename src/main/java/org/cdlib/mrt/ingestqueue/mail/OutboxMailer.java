package org.cdlib.mrt.ingestqueue.mail;

import jakarta.mail.internet.MimeMessage;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default: each message becomes a readable {@code .eml} file in an outbox
 * directory (any mail client opens it), written whole or not at all, and a log line.
 */
public final class OutboxMailer implements Mailer {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxMailer.class);
    private final Path outbox;

    public OutboxMailer(Path outbox) {
        this.outbox = outbox;
    }

    public Path outbox() {
        return outbox;
    }

    @Override
    public void send(MimeMessage message) throws Exception {
        Files.createDirectories(outbox);
        message.saveChanges();
        String name = Instant.now().toString().replace(":", "") + "-"
                + message.getSubject().replaceAll("[^A-Za-z0-9]+", "-");
        Path tmp = Files.createTempFile(outbox, ".mail", ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            message.writeTo(out);
        }
        Path eml = outbox.resolve(name + ".eml");
        Files.move(tmp, eml, StandardCopyOption.ATOMIC_MOVE);
        LOG.info("mail '{}' to {} written to {}", message.getSubject(),
                Arrays.toString(message.getAllRecipients()), eml);
    }
}
