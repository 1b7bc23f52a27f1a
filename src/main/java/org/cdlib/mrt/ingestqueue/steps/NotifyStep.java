package org.cdlib.mrt.ingestqueue.steps;

import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.services.Callback;
import org.cdlib.mrt.ingestqueue.services.SendDeadline;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;

/**
 * Notify's domain steps ({@code routes/notify.yaml}): the profile's callback, when it has one
 * and its handlers include HandlerCallback ({@link Profile#callsBack()}). It carries a stable
 * idempotency key (job, status, retry count) so a receiver can drop a repeat, and a callback
 * recorded as sent for that key is not sent again.
 */
public final class NotifyStep {
    private final QueueStore store;
    private final ProfileRegistry profiles;

    public NotifyStep(QueueStore store, ProfileRegistry profiles) {
        this.store = store;
        this.profiles = profiles;
    }

    /** Says whether a callback is due ({@code callbackDue}); the job's reason when none is. */
    public void begin(Exchange exchange) {
        SendDeadline.disarm(); // the callback is not fenced: a deadline this thread's last job left unused is not its
        JobLock lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        exchange.setProperty(ServiceCall.PROFILE, profile);
        String key = Callback.key(job, "completed");
        JobEffects fx = store.records().effects(lock);
        boolean sent = fx.done(JobEffects.CALLBACK) && key.equals(fx.get(JobEffects.CALLBACK).detail());
        boolean due = profile.callsBack() && !sent;
        exchange.setProperty("callbackDue", due);
        String why = sent ? "callback " + key + " already sent" : profile.callsBack() ? "callback " + key + " sent"
                : profile.callbackUrl() != null ? "no HandlerCallback in profile " + profile.id() + ": not called back"
                : "no callback configured";
        JobExchange.change(exchange, c -> Change.because(why));
    }

    /**
     * The callback's request, under its key (its Idempotency-Key): the receiver drops a repeat, so a
     * callback whose answer was lost is sent again and nothing is recorded before it.
     */
    public void request(Exchange exchange) {
        Callback.request(exchange, JobExchange.lock(exchange).job());
    }

    public void answer(Exchange exchange) throws Exception {
        Callback.answer(exchange);
        JobLock lock = JobExchange.lock(exchange);
        store.records().effectDoneWithNextWrite(lock, JobEffects.CALLBACK, Callback.key(lock.job(), "completed"));
    }
}
