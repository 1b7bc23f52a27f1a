package org.cdlib.mrt.ingestqueue.mail;

import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import java.util.Properties;

/** Sends a depositor mail; throws when it could not, so the caller keeps the batch where it is. */
public interface Mailer {
    void send(MimeMessage message) throws Exception;

    /** A session to build messages in (no transport settings needed for that). */
    static Session session() {
        return Session.getInstance(new Properties());
    }
}
