package org.cdlib.mrt.ingestqueue.mail;

import jakarta.mail.internet.MimeMessage;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Sends through an SMTP server with camel-mail (which sends a {@link MimeMessage} body as it is). */
public final class SmtpMailer implements Mailer {
    private static final Logger LOG = LoggerFactory.getLogger(SmtpMailer.class);
    private final ProducerTemplate producer;
    private final String uri;

    /**
     * @param tls      SMTPS (implicit TLS) instead of plain SMTP
     * @param starttls upgrade a plain connection with STARTTLS (required when set)
     */
    public SmtpMailer(ProducerTemplate producer, String host, int port, boolean tls, boolean starttls, String user,
            String password) {
        this.producer = producer;
        StringBuilder u = new StringBuilder(tls ? "smtps://" : "smtp://").append(host).append(':').append(port)
                .append("?connectionTimeout=15000");
        if (user != null) {
            u.append("&username=")
                    .append(enc(user))
                    .append("&password=RAW(")
                    .append(password == null ? "" : password)
                    .append(')');
        }
        if (starttls) {
            // camel-mail passes mail.* parameters to JavaMail; required: never send the password in clear
            u.append("&mail.smtp.starttls.enable=true&mail.smtp.starttls.required=true");
        }
        this.uri = u.toString();
    }

    @Override
    public void send(MimeMessage message) throws Exception {
        Exchange result = producer.send(uri, e -> e.getIn().setBody(message));
        if (result.getException() != null) {
            throw new IllegalStateException("SMTP: cannot send '" + message.getSubject() + "': "
                    + result.getException().getMessage(), result.getException());
        }
        LOG.info("mail '{}' sent to {}", message.getSubject(), Arrays.toString(message.getAllRecipients()));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
