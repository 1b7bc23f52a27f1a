package org.cdlib.mrt.ingestqueue.steps;

import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;

/** What the processing or the storing route knows of the object between its steps (one exchange property). */
final class ObjectInProcess {
    static final String PROPERTY = "ingestqueue.object";

    final HeldJob lock;
    final Profile profile;
    final WorkingDirectory wd;
    /**
     * The job with the depositor's ERC and identifiers applied: what EZID and storage are told (in
     * storing, the job as processing wrote it: its merged identifiers are all storage needs).
     */
    final Job described;
    final boolean update;
    String ark;
    /** The ARK this attempt minted, if it did (it may lose the local id to another job's). */
    String minted;
    /** The ARK a local id was found bound to when the job had none: perhaps an earlier attempt's unrecorded mint. */
    String foundByLocalId;
    List<Deletions.Delete> deletes = List.of();
    String versionBefore;
    /** Each file's digest by local storage's own algorithm, from the storage manifest's read (StoreStep). */
    Map<String, String> contentDigests = Map.of();

    ObjectInProcess(HeldJob lock, Profile profile, WorkingDirectory wd, Job described, boolean update) {
        this.lock = lock;
        this.profile = profile;
        this.wd = wd;
        this.described = described;
        this.update = update;
        this.ark = described.identifiers().primary();
    }

    Job job() {
        return lock.job();
    }

    Identifiers identifiers() {
        return described.identifiers().withPrimary(ark);
    }

    /** The object's ARK, also as the exchange property the calls read ({@link ServiceCall#ARK}). */
    void ark(Exchange exchange, String ark) {
        this.ark = ark;
        if (ark == null) {
            exchange.removeProperty(ServiceCall.ARK);
        } else {
            exchange.setProperty(ServiceCall.ARK, ark);
        }
    }

    /**
     * One writer per object, on any host: takes the object's lock (property {@code objectBusy}
     * false), or, while another job writes the object, leaves this one waiting in its state
     * without a worker ({@code objectBusy} true).
     */
    void lockObject(QueueStore store, Exchange exchange) {
        String writer = store.stepWrites().lockObject(lock, ark);
        exchange.setProperty("objectBusy", writer != null);
        if (writer != null) {
            JobExchange.stay(exchange, "object " + ark + " is being written by job " + writer + "; waiting for it");
        }
    }

    static ObjectInProcess of(Exchange exchange) {
        ObjectInProcess o = exchange.getProperty(PROPERTY, ObjectInProcess.class);
        if (o == null) {
            throw new IllegalStateException(
                    "no object on this exchange: the route must begin with processStep.begin or storeStep.begin");
        }
        return o;
    }
}
