package org.cdlib.mrt.ingestqueue.steps;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Processing's first steps, called from {@code routes/processing.yaml}: the object's identifiers.
 * A local id already bound in the collection names the ARK; otherwise one is minted, bound to the
 * local ids and written to the job at once with the mint's record, so a restarted job never mints
 * twice. Every ARK this job minted and kept gets its EZID update exactly once: the update is
 * recorded as an effect, and an attempt that did not mint the ARK itself asks EZID whether an
 * earlier attempt's update arrived before sending it again, as does a retry of an update that got
 * no answer; the update is fenced. A mint whose answer was lost is
 * recorded on the job ({@code lost_mint}) for the operator, who may find an unused ARK at EZID.
 */
public final class IdentifiersStep {
    private static final Logger LOG = LoggerFactory.getLogger(IdentifiersStep.class);

    /**
     * Exchange property: when ({@link System#nanoTime}) this attempt sent the EZID update; its retry asks EZID first.
     */
    static final String UPDATE_SENT_AT = "ezidUpdateSentAt";

    private final QueueStore store;
    private final Duration settle;

    /** {@code settle}: how long an update this attempt sent with no answer is given to land before EZID is asked. */
    public IdentifiersStep(QueueStore store, Duration settle) {
        this.store = store;
        this.settle = settle;
    }

    /** The local id the loop is at ({@code CamelLoopIndex}), for the local-id call that follows. */
    public void nextLocalId(Exchange exchange) {
        int i = exchange.getProperty(Exchange.LOOP_INDEX, 0, Integer.class);
        exchange.setProperty(
                ServiceCall.LOCAL_ID,
                ObjectInProcess.of(exchange).described.identifiers().localId().get(i));
        exchange.removeProperty(ServiceCall.RESULT);
    }

    /** A local id bound in the collection names the object's ARK; two that disagree are the depositor's error. */
    public void lookedUp(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        String bound = exchange.getProperty(ServiceCall.RESULT, String.class);
        if (bound == null) {
            return;
        }
        if (o.ark == null) {
            o.ark(exchange, bound);
            o.foundByLocalId = bound;
        } else if (!o.ark.equals(bound)) {
            throw new IllegalArgumentException("local id '" + exchange.getProperty(ServiceCall.LOCAL_ID)
                    + "' is bound to " + bound + " in collection " + o.profile.id() + ", but the job names " + o.ark);
        }
    }

    /**
     * Before a mint: recorded as begun (fenced by the record's transaction, which checks the lock
     * and the job's version), so a lost answer is known for what it is. An earlier mint begun and
     * never answered is recorded as lost in the same transaction: EZID cannot be asked which ARK
     * it carried, so this job mints again and the operator is shown that one may exist unused.
     */
    public void beginMint(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        Job job = o.job();
        if (store.stepWrites().effects(o.lock).unresolved(JobEffects.MINT)) {
            JobEffects fx = store.stepWrites().mintAgain(o.lock, o.profile.id());
            // the wording "began minting and recorded no ARK" is what the chaos test counts
            LOG.warn(
                    "job {} batch {}: an earlier attempt began minting and recorded no ARK; minting again "
                            + "(lost_mint {} on the job: an unused ARK may exist at the minter)",
                    job.id(),
                    job.batchId(),
                    fx.lostMints());
        } else {
            store.stepWrites().effectStarted(o.lock, JobEffects.MINT, o.profile.id());
        }
    }

    public void minted(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        o.minted = exchange.getProperty(ServiceCall.RESULT, String.class);
        o.ark(exchange, o.minted);
    }

    /** After binding a local id: bound to this ARK, or (when this job minted it) to another job's meanwhile. */
    public void bound(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        String bound = exchange.getProperty(ServiceCall.RESULT, o.ark, String.class);
        if (bound.equals(o.ark)) {
            return;
        }
        String localId = exchange.getProperty(ServiceCall.LOCAL_ID, String.class);
        if (o.minted == null) {
            throw new IllegalArgumentException("local id '" + localId + "' is bound to " + bound + " in collection "
                    + o.profile.id() + ", but the job names " + o.ark);
        }
        LOG.warn("job {} batch {}: local id '{}' was bound to {} by another job meanwhile; using it ({} is not used)",
                o.job().id(), o.job().batchId(), localId, bound, o.minted);
        o.ark(exchange, bound);
    }

    /**
     * The ARK is written to the job before anything else can fail: a retry reuses it. Says whether
     * EZID's update is due ({@code describeNeeded}: this job minted the ARK it keeps and its update
     * is not recorded) and whether EZID is asked first ({@code describeProbe}: an earlier attempt
     * may have sent it and lost the answer).
     */
    public void keepIdentifiers(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        try {
            keep(exchange, o);
        } catch (StaleLockException e) {
            if (o.minted != null) {
                // recorded nowhere: the job's holder mints its own (or
                // takes this one, if this attempt bound it to the local id)
                LOG.warn(
                        "job {} batch {}: minted {} and then found the job no longer this worker's: that ARK is"
                                + " recorded on no job and is unused unless the job's local id is bound to it",
                        o.job().id(),
                        o.job().batchId(),
                        o.minted);
            }
            throw e;
        }
    }

    private void keep(Exchange exchange, ObjectInProcess o) {
        Job job = o.job();
        JobEffects fx = store.stepWrites().effects(o.lock); // as the lock knows them: no read
        // only an attempt after the one that recorded the mint can have sent the update already
        boolean mintedEarlier = fx.done(JobEffects.MINT);
        Identifiers ids = o.identifiers();
        boolean changed = !o.ark.equals(job.identifiers().primary())
                || !ids.localId().equals(job.identifiers().localId());
        if (fx.unresolved(JobEffects.MINT) && o.minted == null) {
            if (job.identifiers().primary() != null) {
                // an earlier attempt minted this ARK and wrote it to the job; only the record of it was lost
                fx = store.stepWrites().effectDone(o.lock, JobEffects.MINT, job.identifiers().primary());
            } else if (o.ark.equals(o.foundByLocalId)) {
                // an earlier attempt minted and bound this ARK, then died before writing it: it is this job's
                // mint, and its EZID update is still due
                LOG.warn(
                        "job {} batch {}: an earlier attempt's mint was not recorded, and the local id is bound to {}: "
                                + "taken as that mint",
                        job.id(),
                        job.batchId(),
                        o.ark);
                fx = store.stepWrites().writeMintedIdentifiers(o.lock, ids, o.ark);
                changed = false;
            }
        }
        if (changed) {
            if (o.minted != null) {
                // the ARK and the mint's record together
                fx = store.stepWrites().writeMintedIdentifiers(o.lock, ids, o.minted);
            } else {
                store.stepWrites().writeIdentifiers(o.lock, ids);
            }
        }
        // an ARK is described by the job that minted it: not one another job bound first, which that job describes
        boolean ours = fx.done(JobEffects.MINT) && o.ark.equals(fx.get(JobEffects.MINT).detail());
        // unless this job lost a mint's answer: the ARK bound to its local id may be that lost mint's, bound by
        // that attempt before it died (no other job would describe it then); EZID is asked first, and an update
        // another job of the object sent too sets the same metadata
        boolean mayBeOurs = !ours && fx.lostMints() > 0;
        boolean described = fx.done(JobEffects.EZID_UPDATE) && o.ark.equals(fx.get(JobEffects.EZID_UPDATE).detail());
        exchange.setProperty("describeNeeded", (ours || mayBeOurs) && !described);
        exchange.setProperty("describeProbe", (ours && mintedEarlier || mayBeOurs) && !described);
        exchange.setProperty("describedEarlier", false);
    }

    /**
     * After asking EZID: an update sent before (its answer lost) is recorded, not sent again. It is
     * known not to be sent before the record is tried: a record refused because the job is no
     * longer this worker's must not end in a send either.
     */
    public void viewed(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        if (Boolean.TRUE.equals(exchange.getProperty(ServiceCall.RESULT, Boolean.class))) {
            LOG.info(
                    "job {} batch {}: {} already has its landing page at EZID (an update whose answer was lost); not"
                            + " sent again",
                    o.job().id(),
                    o.job().batchId(),
                    o.ark);
            exchange.setProperty("describedEarlier", true);
            store.stepWrites().effectDone(o.lock, JobEffects.EZID_UPDATE, o.ark);
        }
    }

    /** Right before the update goes out: its retry in this attempt asks EZID first ({@link #settle}). */
    public void sending(Exchange exchange) {
        exchange.setProperty(UPDATE_SENT_AT, System.nanoTime());
    }

    /**
     * Before a retry of this attempt's update asks EZID whether it arrived (it had no answer in time,
     * or a 5xx): the update may still be on its way in, and read as "not there" it would be sent a
     * second time. It is given until its send plus {@code ingest.ezid.settle} to land.
     */
    public void settle(Exchange exchange) throws InterruptedException {
        Long sent = exchange.getProperty(UPDATE_SENT_AT, Long.class);
        long left = sent == null ? 0 : sent + settle.toNanos() - System.nanoTime();
        if (left > 0) {
            ObjectInProcess o = ObjectInProcess.of(exchange);
            LOG.info(
                    "job {} batch {}: the EZID update of {} had no answer; waiting {} ms for it to land before asking"
                            + " EZID",
                    o.job().id(),
                    o.job().batchId(),
                    o.ark,
                    TimeUnit.NANOSECONDS.toMillis(left));
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /**
     * EZID could not be asked (no connection, no answer, a 5xx): the update is sent anyway (it sets the same metadata).
     */
    public void notViewed(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        Throwable e = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        LOG.warn("job {} batch {}: cannot ask EZID whether {} is described ({}); sending its update", o.job().id(),
                o.job().batchId(), o.ark, e == null ? "?" : e.getMessage());
    }

    public void described(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        store.stepWrites().effectDoneWithNextWrite(o.lock, JobEffects.EZID_UPDATE, o.ark);
    }

    /** The ARK exists and is recorded; its landing page can be set later, the object must not wait. */
    public void notDescribed(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        Throwable e = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        LOG.warn("job {} batch {}: {} minted but not described: {}", o.job().id(), o.job().batchId(), o.ark,
                e == null ? "?" : e.getMessage());
    }
}
