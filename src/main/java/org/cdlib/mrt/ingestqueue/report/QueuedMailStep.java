package org.cdlib.mrt.ingestqueue.report;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.mail.Mailer;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The "queued" mail once a batch's jobs exist, unless the profile suppresses it. Informational:
 * a failure is logged and never holds the batch back.
 */
public final class QueuedMailStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(QueuedMailStep.class);
    private final ProfileRegistry profiles;
    private final DepositorMail mail;
    private final Mailer mailer;

    public QueuedMailStep(ProfileRegistry profiles, DepositorMail mail, Mailer mailer) {
        this.profiles = profiles;
        this.mail = mail;
        this.mailer = mailer;
    }

    @Override
    public void process(Exchange exchange) {
        if (!BatchExchange.firstJobsQueued(exchange)) {
            return; // held, refused, or a later window of a batch already announced
        }
        Batch batch = BatchExchange.lock(exchange).batch();
        Profile profile = profiles.find(batch.submission().profileName()).orElse(null);
        if (profile == null || profile.suppressesQueuedMail()) {
            return;
        }
        try {
            var to = DepositorMail.recipients(batch, profile);
            if (!to.isEmpty()) {
                mailer.send(mail.queued(batch, to));
            }
        } catch (Exception e) {
            LOG.warn("batch {}: queued mail not sent: {}", batch.id(), e.getMessage());
        }
    }
}
