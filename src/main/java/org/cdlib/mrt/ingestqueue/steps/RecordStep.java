package org.cdlib.mrt.ingestqueue.steps;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.services.Storage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recording's domain steps ({@code routes/recording.yaml}): the job succeeds only once
 * inventory has the object, so a depositor is never told of an object that cannot be found.
 * The add is sent once, as storage's is: recorded under the job as begun before it is sent
 * ({@link #beginAdd}), and an add begun with no answer recorded (a crash, a lost connection, a
 * 5xx) is resolved by asking inventory for the object's version ({@link #sawVersion}) before it
 * is ever sent again. The local index of local ids is updated as well, also when inventory is
 * Merritt's.
 */
public final class RecordStep {
    private static final Logger LOG = LoggerFactory.getLogger(RecordStep.class);
    /**
     * Exchange property: an add of this version was begun (by an earlier attempt, or sent by this
     * one) with no answer known.
     */
    static final String ADD_BEGUN = "inventoryAddBegun";
    /**
     * Exchange property: the add is to be sent (inventory does not have the version, or was not
     * asked: nothing begun).
     */
    static final String ADD_NEEDED = "inventoryAddNeeded";
    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final H2Inventory localIndex;
    private final Storage storage;
    private final boolean merrittInventory;
    private final Duration settle;

    /**
     * @param storage with it, an update version's files are listed from storage (carried-forward ones
     *                included); may be null
     * @param merrittInventory inventory is Merritt's: the local index is added to after it
     * @param settle how long after it was begun an add with no answer is given to land before inventory is asked
     */
    public RecordStep(QueueStore store, ProfileRegistry profiles, H2Inventory localIndex, Storage storage,
                      boolean merrittInventory, Duration settle) {
        this.store = store;
        this.profiles = profiles;
        this.localIndex = localIndex;
        this.storage = storage;
        this.merrittInventory = merrittInventory;
        this.settle = settle;
    }

    /** What recording tells inventory. */
    record Recording(HeldJob lock, Profile profile, StoredVersion version, List<String> localIds,
            List<ManifestFile> files) {
        static final String PROPERTY = "ingestqueue.recording";

        static Recording of(Exchange exchange) {
            Recording r = exchange.getProperty(PROPERTY, Recording.class);
            if (r == null) {
                throw new IllegalStateException("no recording on this exchange: the route must begin with "
                        + "recordStep.begin");
            }
            return r;
        }

        String key() {
            return version.ark() + " v" + version.version();
        }
    }

    /** Storage's answer kept by processing; says whether an earlier attempt's add already reached inventory. */
    public void begin(Exchange exchange) throws Exception {
        HeldJob lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        WorkingDirectory wd = WorkingDirectory.of(store.ingestHome(), job.configuration().workingDir());
        JobEffects fx = store.stepWrites().effects(lock);
        StoredVersion v = StoredVersions.of(fx);
        if (v == null) {
            v = ProcessStep.stored(wd.root()); // stored by a release that kept the answer only in this file
        }
        List<ManifestFile> files = null;
        if (storage != null && "update".equals(v.mode())) {
            files = storage.versionFiles(v.ark(), v.version());
        }
        if (files == null) {
            // as storing listed them for storage (its system/mrt-manifest.txt): no file read and digested again
            files = StorageManifest.written(wd.root()).orElse(null);
        }
        if (files == null) {
            files = StorageManifest.build(wd.root(), (f, name) -> name).files();
        }
        Recording r = new Recording(lock, profile, v, job.identifiers().localId(), files);
        exchange.setProperty(Recording.PROPERTY, r);
        exchange.setProperty(ServiceCall.PROFILE, profile);
        exchange.setProperty(ServiceCall.VERSION, v);
        JobEffects.Effect earlier = fx.get(JobEffects.INVENTORY);
        boolean ours = earlier != null && r.key().equals(earlier.detail());
        boolean done = ours && earlier.done();
        if (done) {
            LOG.info("job {} batch {}: inventory already has {} (an earlier attempt recorded it); not sent again",
                    job.id(), job.batchId(), r.key());
        }
        exchange.setProperty("recordedEarlier", done);
        // begun by an earlier attempt and never answered: inventory is asked before anything is sent
        exchange.setProperty(ADD_BEGUN, ours && !done);
        exchange.setProperty(ADD_NEEDED, !done);
    }

    /**
     * Before inventory is asked about an add begun with no answer: that add may still be on its way
     * into inventory (an answer lost to a timeout while inventory was busy, a host killed right after
     * sending). Merritt's inventory has no conditional add, so an add that lands after the read
     * ("none") and before a resend would make two adds. The add is given until its begun record's
     * time plus {@code ingest.inventory.settle} to land: no wait when that passed long ago (a job
     * taken over after a session expired, requeued), the rest of it for a retry within the attempt
     * that sent it. The local inventory commits within its call: nothing to wait for.
     */
    public void settle(Exchange exchange) throws InterruptedException {
        if (!merrittInventory || settle.isZero()) {
            return;
        }
        Recording r = Recording.of(exchange);
        JobEffects.Effect begun = store.stepWrites().effects(r.lock()).get(JobEffects.INVENTORY);
        if (begun == null || begun.done() || !r.key().equals(begun.detail())) {
            return;
        }
        Duration left = settleLeft(begun.at(), settle, Instant.now());
        if (!left.isZero()) {
            Job job = r.lock().job();
            LOG.info("job {} batch {}: an inventory add of {} begun at {} has no answer recorded; waiting {} ms "
                    + "for it to land before asking inventory", job.id(), job.batchId(), r.key(), begun.at(),
                    left.toMillis());
            Thread.sleep(left.toMillis());
        }
    }

    /**
     * What is left of {@code settle} counted from {@code begunAt} (an effect's {@code at}): zero once
     * it passed, never more than {@code settle} (a clock ahead of this host's); the whole of it when
     * the time cannot be read (a record written by hand).
     */
    static Duration settleLeft(String begunAt, Duration settle, Instant now) {
        Instant begun;
        try {
            begun = Instant.parse(begunAt);
        } catch (RuntimeException e) {
            return settle;
        }
        Duration left = Duration.between(now, begun.plus(settle));
        return left.isNegative() ? Duration.ZERO : left.compareTo(settle) > 0 ? settle : left;
    }

    /**
     * After asking inventory for the object's version ({@code direct:inventory-version}), when an
     * add of this version was begun and its answer is not known: inventory at this version or past
     * it has the add, which is recorded as done and not sent again; below it, the add never took
     * effect and is sent (again).
     */
    public void sawVersion(Exchange exchange) {
        Recording r = Recording.of(exchange);
        int has = exchange.getProperty(ServiceCall.RESULT, 0, Integer.class);
        Job job = r.lock().job();
        if (has >= r.version().version()) {
            LOG.warn("job {} batch {}: an inventory add of {} had no answer recorded; inventory has version {} of it: "
                    + "taken as that add's, not sent again", job.id(), job.batchId(), r.key(), has);
            store.stepWrites().effectDoneWithNextWrite(r.lock(), JobEffects.INVENTORY, r.key());
            exchange.setProperty(ADD_NEEDED, false);
        } else {
            LOG.info("job {} batch {}: an inventory add of {} had no answer recorded; inventory has {}: "
                    + "sending it again", job.id(), job.batchId(), r.key(),
                    has == 0 ? "no version of it" : "only version " + has);
            exchange.setProperty(ADD_NEEDED, true);
        }
    }

    /**
     * Before the add: recorded as begun ({@code started}, with the version's key) in one fenced
     * transaction, so whoever finds it without an answer asks inventory before sending it again.
     * An add sent again (inventory had not got the one begun before) is recorded again: its time is
     * what {@link #settle} counts from. From here on, a failure of this exchange leaves the answer
     * unknown: its redelivery asks first.
     */
    public void beginAdd(Exchange exchange) {
        Recording r = Recording.of(exchange);
        store.stepWrites().effectStarted(r.lock(), JobEffects.INVENTORY, r.key());
        exchange.setProperty(ADD_BEGUN, true);
    }

    /**
     * The last look before the add: this worker still holds the job (right after the begun
     * record's transaction, nothing is read). A host paused past its session sends nothing when
     * it wakes; the host that took the job over finds the add begun and asks inventory.
     */
    public void fence(Exchange exchange) {
        Run.current().sendBy(Recording.of(exchange).lock().verifyHeldUntil());
    }

    /**
     * The add answered: recorded as done with the job's next write (its move), not a transaction of
     * its own. A crash before that write leaves it begun, and the next attempt asks inventory.
     */
    public void added(Exchange exchange) {
        Recording r = Recording.of(exchange);
        store.stepWrites().effectDoneWithNextWrite(r.lock(), JobEffects.INVENTORY, r.key());
        exchange.setProperty(ADD_BEGUN, false);
    }

    public void finish(Exchange exchange) throws Exception {
        Recording r = Recording.of(exchange);
        if (merrittInventory) {
            localIndex.add(r.profile(), r.version(), r.localIds(), r.files());
        }
        StoredVersion v = r.version();
        JobExchange.change(exchange, c -> Change.because("inventory has " + v.ark() + " version " + v.version()
                + " (" + v.mode() + " mode)"));
    }
}
