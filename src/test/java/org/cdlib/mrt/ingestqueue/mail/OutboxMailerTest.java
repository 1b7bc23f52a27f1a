package org.cdlib.mrt.ingestqueue.mail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutboxMailerTest {
    @TempDir
    Path dir;

    @Test
    void eachMessageIsAReadableEmlFileAndNothingHalfWritten() throws Exception {
        MimeMessage m = new MimeMessage(Mailer.session());
        m.setFrom(new InternetAddress("ingest@example.org"));
        m.addRecipient(Message.RecipientType.TO, new InternetAddress("curator@example.org"));
        m.setSubject("Ingest: OK -- Submission Processed: bid0000000001");
        m.setText("Submission ID: bid0000000001\n");
        new OutboxMailer(dir.resolve("outbox")).send(m);
        List<Path> files;
        try (Stream<Path> s = Files.list(dir.resolve("outbox"))) {
            files = s.toList();
        }
        assertEquals(1, files.size(), "no temporary file is left next to the message");
        assertTrue(files.get(0).getFileName().toString().endsWith(".eml"));
        try (InputStream in = Files.newInputStream(files.get(0))) {
            MimeMessage read = new MimeMessage(Mailer.session(), in);
            assertEquals("Ingest: OK -- Submission Processed: bid0000000001", read.getSubject());
            assertEquals("curator@example.org", read.getAllRecipients()[0].toString());
        }
    }
}
