package org.cdlib.mrt.ingestqueue.steps;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.Change;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobEffects;
import org.cdlib.mrt.ingestqueue.services.Callback;

/**
 * Notify: the profile's callback, when it has one and its handlers include HandlerCallback
 * ({@link Profile#callsBack()}); retried on connection errors and 5xx. It carries a stable
 * idempotency key (job, status, retry count) so a receiver can drop a repeat, and a callback
 * recorded as sent for that key is not sent again.
 */
public final class NotifyStep implements Processor {
    private final org.cdlib.mrt.ingestqueue.queue.QueueStore store;
    private final ProfileRegistry profiles;
    private final Callback callback;

    public NotifyStep(org.cdlib.mrt.ingestqueue.queue.QueueStore store, ProfileRegistry profiles, Callback callback) {
        this.store = store;
        this.profiles = profiles;
        this.callback = callback;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        org.cdlib.mrt.ingestqueue.queue.JobLock lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        String key = Callback.key(job, "completed");
        JobEffects fx = store.effects(lock);
        if (fx.done(JobEffects.CALLBACK) && key.equals(fx.get(JobEffects.CALLBACK).detail())) {
            JobExchange.change(exchange, c -> Change.because("callback " + key + " already sent"));
            return;
        }
        store.effectStarted(lock, JobEffects.CALLBACK, key);
        boolean sent = callback.send(profile, job, "completed");
        store.effectDone(lock, JobEffects.CALLBACK, key);
        String why = sent ? "callback " + key + " sent" : profile.callbackUrl() != null ? "no HandlerCallback in profile "
                + profile.id() + ": not called back" : "no callback configured";
        JobExchange.change(exchange, c -> Change.because(why));
    }
}
