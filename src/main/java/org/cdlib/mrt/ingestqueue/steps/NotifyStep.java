package org.cdlib.mrt.ingestqueue.steps;

import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.services.Callback;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;

/**
 * Notify's domain steps ({@code routes/notify.yaml}): the profile's callback, when it has one
 * and its handlers include HandlerCallback ({@link Profile#callsBack()}). It carries a stable
 * idempotency key (job, status, retry count) so a receiver can drop a repeat, and a callback
 * recorded as sent for that key is not sent again. A receiver cannot be asked whether a callback
 * arrived, so the contract is at least once under one key: the answer is recorded the moment it
 * is known (its own transaction), and the call is fenced, so a second send happens only when its
 * sender died or was paused between the send and that record.
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
        HeldJob lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        exchange.setProperty(ServiceCall.PROFILE, profile);
        String key = Callback.key(job, "completed");
        JobEffects fx = store.stepWrites().effects(lock);
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

    /**
     * The last look before the callback: this worker still holds the job. A host paused past its
     * session sends nothing when it wakes (the host that took the job over has sent it, or will).
     */
    public void fence(Exchange exchange) {
        Run.current().sendBy(JobExchange.lock(exchange).verifyHeldUntil());
    }

    /**
     * The answer recorded at once, in a transaction of its own (one write a job with a callback):
     * riding with the job's move, it was lost with a host killed or paused while the working
     * directory was removed, and the next holder called back again.
     */
    public void answer(Exchange exchange) throws Exception {
        Callback.answer(exchange);
        HeldJob lock = JobExchange.lock(exchange);
        store.stepWrites().effectDone(lock, JobEffects.CALLBACK, Callback.key(lock.job(), "completed"));
    }
}
