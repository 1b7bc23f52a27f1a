package org.cdlib.mrt.ingestqueue.mail;

import jakarta.mail.internet.MimeMessage;

/** Sends a depositor mail; throws when it could not, so the caller keeps the batch where it is. */
public interface Mailer {
    void send(MimeMessage message) throws Exception;

    /** A session to build messages in (no transport settings needed for that). */
    static jakarta.mail.Session session() {
        return jakarta.mail.Session.getInstance(new java.util.Properties());
    }
}
