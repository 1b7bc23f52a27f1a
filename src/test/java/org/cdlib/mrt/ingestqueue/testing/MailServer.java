package org.cdlib.mrt.ingestqueue.testing;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.util.List;
import java.util.Map;

/** A real SMTP server (GreenMail) on a free loopback port, and the properties that send the service's mail to it. */
public final class MailServer implements AutoCloseable {
    private GreenMail smtp;
    private final int port;

    public MailServer() {
        smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        smtp.start();
        port = smtp.getSmtp().getPort();
    }

    public void addTo(Map<String, String> properties) {
        properties.put("ingest.mail.smtp.host", "127.0.0.1");
        properties.put("ingest.mail.smtp.port", Integer.toString(port));
        properties.put("ingest.mail.from", "ingest@example.org");
    }

    /** The server goes down; nothing listens on its port. */
    public void down() {
        smtp.stop();
    }

    /** Back on the same port. */
    public void up() {
        smtp = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        smtp.start();
    }

    /** Every message received, one per recipient. */
    public List<MimeMessage> received() {
        return List.of(smtp.getReceivedMessages());
    }

    public List<String> subjects() {
        return List.of(smtp.getReceivedMessages()).stream().map(MailServer::subjectOf).toList();
    }

    public MimeMessage withSubject(String subject) {
        return List.of(smtp.getReceivedMessages()).stream().filter(m -> subjectOf(m).equals(subject)).findFirst()
                .orElseThrow(() -> new AssertionError("no mail '" + subject + "' in " + subjects()));
    }

    public static String text(MimeMessage m) throws Exception {
        Object c = m.getContent();
        return c instanceof Multipart mp ? (String) mp.getBodyPart(0).getContent() : (String) c;
    }

    public static String subjectOf(MimeMessage m) {
        try {
            return m.getSubject();
        } catch (MessagingException e) {
            return "";
        }
    }

    @Override
    public void close() {
        smtp.stop();
    }
}
