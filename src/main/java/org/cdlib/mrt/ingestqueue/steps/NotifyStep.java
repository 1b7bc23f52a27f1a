package org.cdlib.mrt.ingestqueue.steps;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.Change;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.services.Callback;

/**
 * Notify: the profile's callback, when it has one and its handlers include HandlerCallback
 * ({@link Profile#callsBack()}); retried on connection errors and 5xx.
 */
public final class NotifyStep implements Processor {
    private final ProfileRegistry profiles;
    private final Callback callback;

    public NotifyStep(ProfileRegistry profiles, Callback callback) {
        this.profiles = profiles;
        this.callback = callback;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        Job job = JobExchange.job(exchange);
        Profile profile = profiles.require(job.configuration().profileName());
        boolean sent = callback.send(profile, job, "completed");
        String why = sent ? "callback sent" : profile.callbackUrl() != null ? "no HandlerCallback in profile " + profile.id()
                + ": not called back" : "no callback configured";
        JobExchange.change(exchange, c -> Change.because(why));
    }
}
