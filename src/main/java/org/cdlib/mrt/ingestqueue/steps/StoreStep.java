package org.cdlib.mrt.ingestqueue.steps;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.DownloadRecord;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.services.StorageAddresses;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storing's domain steps, called one by one from {@code routes/storing.yaml} between the outside
 * calls ({@code direct:storage-version}, {@code direct:storage-add}): the new version of the object
 * processing prepared, sent once. The add is recorded under the job ({@code /jobs/JID/effects})
 * before and after, and an add whose answer was lost is resolved by asking storage for the
 * object's version, so a job restarted in storing (a crash, a requeue) stores at most once. The
 * object's lock, taken by processing, is held through storing; a job that let it go (failed or
 * held here) takes it again before it stores.
 */
public final class StoreStep {
    private static final Logger LOG = LoggerFactory.getLogger(StoreStep.class);
    /** The exchange property that names an operator's own call ({@link #effectDue}, {@link #effectDone}). */
    public static final String EFFECT = "effect";
    private static final String PRODUCER = "producer/";
    private static final Pattern EFFECT_NAME = Pattern.compile("[a-z][a-z0-9_-]{0,39}");
    private static final Set<String> OWN_EFFECTS = Set.of(JobEffects.MINT, JobEffects.EZID_UPDATE,
            JobEffects.STORAGE, JobEffects.INVENTORY, JobEffects.CALLBACK, JobEffects.LOST_MINT);

    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final StorageAddresses addresses;
    private final Duration settle;

    /**
     * {@code settle}: how long an add begun by an earlier attempt, its answer lost, is given to land
     * before storage is asked.
     */
    public StoreStep(QueueStore store, ProfileRegistry profiles, StorageAddresses addresses, Duration settle) {
        this.store = store;
        this.profiles = profiles;
        this.addresses = addresses;
        this.settle = settle;
    }

    /**
     * The object as processing left it (ARK and local ids in the job, system files written); says
     * whether an earlier attempt stored it.
     */
    public void begin(Exchange exchange) throws Exception {
        HeldJob lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        WorkingDirectory wd = ProcessStep.workingDirectory(store, job);
        if (job.identifiers().primary() == null) {
            throw new IllegalStateException("job " + job.id() + " has no ARK: processing did not finish it");
        }
        boolean update = "update".equalsIgnoreCase(job.configuration().submissionMode());
        ObjectInProcess o = new ObjectInProcess(lock, profile, wd, job, update);
        // processing moved mrt-delete.txt to system/ and checked its lines; only update mode applies them
        o.deletes = o.update ? Deletions.take(wd.producer(), wd.system()) : List.of();
        exchange.setProperty(ObjectInProcess.PROPERTY, o);
        exchange.setProperty(ServiceCall.PROFILE, profile);
        exchange.setProperty(ServiceCall.LOCAL_IDS, job.identifiers().localId());
        if (o.update) {
            exchange.setProperty(ServiceCall.DELETES, o.deletes);
        } else {
            exchange.removeProperty(ServiceCall.DELETES);
        }
        o.ark(exchange, o.ark);
        JobEffects fx = store.stepWrites().effects(lock);
        StoredVersion earlier = null;
        if (fx.done(JobEffects.STORAGE)) {
            earlier = StoredVersions.of(fx);
            if (earlier.ark().equals(o.ark)) {
                LOG.info("job {} batch {}: {} version {} already stored by an earlier attempt; not stored again",
                        job.id(), job.batchId(), o.ark, earlier.version());
            } else {
                earlier = null;
            }
        }
        exchange.setProperty("storedEarlier", earlier != null);
        if (earlier != null) {
            exchange.setProperty(ServiceCall.VERSION, earlier);
        }
    }

    /**
     * One writer per object: this job's lock, kept since processing, or taken again after a failure
     * or hold let it go.
     */
    public void lockObject(Exchange exchange) {
        ObjectInProcess.of(exchange).lockObject(store, exchange);
    }

    /**
     * The storage manifest, written (fenced) and put on the exchange for the add: its file URLs
     * are signed now, since storage fetches them right after, however long the job waited here.
     */
    public void writeManifest(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        Job job = o.job();
        o.lock.verifyHeld(); // fencing: a worker that lost the job writes nothing into the shared working directory
        // the URLs name this lease: storage fetches them only while it holds the job (FileUrlSigner)
        StorageManifest manifest = StorageManifest.build(o.wd.root(),
                (file, name) -> addresses.fileUrl(job.batchId(), job.id(), file, name), o.lock.lease().sessionId,
                addresses.contentDigest(), downloaded(o.wd));
        Files.writeString(o.wd.system().resolve(StorageManifest.NAME), manifest.text());
        o.contentDigests = manifest.alsoDigests(); // local storage's own digest, from the same read: not read again
        exchange.setProperty(ServiceCall.MANIFEST, manifest.text());
    }

    /**
     * The digests the download computed for each file of {@code producer/}, while the file is as it recorded it;
     * none when its record cannot be read (each file is read then).
     */
    static StorageManifest.KnownDigests downloaded(WorkingDirectory wd) {
        DownloadRecord record;
        try {
            record = DownloadRecord.of(wd);
        } catch (FetchException e) {
            LOG.warn("{}: the files' digests are read again: {}", wd.root(), e.getMessage());
            return StorageManifest.KnownDigests.NONE;
        }
        return (name, file) -> name.startsWith(PRODUCER) ? record.digests(name.substring(PRODUCER.length()), file)
                : Map.of();
    }

    /**
     * The last look before the add, which must not be sent twice: this worker still holds the job.
     * It sits right before the send, after the effect record, so a worker paused past its session
     * (another host has the job now) sends nothing when it wakes.
     */
    public void fence(Exchange exchange) {
        Run.current().sendBy(ObjectInProcess.of(exchange).lock.verifyHeldUntil());
    }

    /**
     * Before asking storage for the object's version, when an earlier attempt's add has no answer
     * recorded (begun, never done): that add may still be on its way into storage. Its files were
     * fetched only while its lease held the job (the file gate), so before this attempt's claim; but
     * storage makes the version a moment after its last fetch, and a version asked for in that
     * moment reads none, so the object would be added twice. Waiting {@code ingest.storage.settle}
     * from the last moment that add could have fetched lets it land first and be read as the lost
     * answer; a wait that has already passed is not waited again (an add begun hours ago, its job
     * requeued after a storage outage, waits nothing).
     */
    public void settle(Exchange exchange) throws InterruptedException {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        if (settle.isZero()) {
            return;
        }
        JobEffects fx = store.stepWrites().effects(o.lock);
        if (!fx.unresolved(JobEffects.STORAGE)) {
            return;
        }
        long waitMs = settleWaitMs(fx.effects().get(JobEffects.STORAGE).at(), o.job().status().history(),
                o.lock.owner().since(), settle, Instant.now());
        if (waitMs > 0) {
            LOG.info("job {} batch {}: an earlier attempt's storage add has no answer recorded; waiting {} ms "
                    + "for it to land before asking storage for {}'s version", o.job().id(), o.job().batchId(), waitMs,
                    o.ark);
            Thread.sleep(waitMs);
        }
    }

    /**
     * How long is left of the settle wait. The earlier add's files were served only while its lease
     * held the job, so it fetched nothing after that lease ended: at the job's first move after the
     * add began (that move let its lock go), or, with no move since (its session ended), before this
     * lease chain's claim ({@code claimedAt}); an add begun under this lease chain itself may still be
     * fetching (the whole wait). The wait counts from then; an unreadable time counts from now (the
     * whole wait).
     */
    static long settleWaitMs(String begunAt, List<JobHistory.Entry> history,
                             String claimedAt, Duration settle, Instant now) {
        Instant leaseEnd;
        try {
            Instant begun = Instant.parse(begunAt);
            Instant claimed = Instant.parse(claimedAt);
            // begun under this very lease chain, with no move since: that add may be fetching still
            leaseEnd = claimed.isAfter(begun) ? claimed : now;
            if (history != null) {
                for (var e : history) {
                    Instant at = parsedOrNull(e.at());
                    if (at != null && at.isAfter(begun) && at.isBefore(leaseEnd)) {
                        leaseEnd = at; // the first move after the add began ended its lease
                        break;
                    }
                }
            }
        } catch (RuntimeException unreadable) {
            leaseEnd = now;
        }
        long passed = Duration.between(leaseEnd, now).toMillis();
        return Math.max(0, Math.min(settle.toMillis(), settle.toMillis() - passed));
    }

    private static Instant parsedOrNull(String at) {
        try {
            return at == null ? null : Instant.parse(at);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * After asking storage for the object's version: an add whose answer was lost (begun, never
     * done) took effect when the version moved past the one seen before it, and is not sent again.
     */
    public void sawVersion(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        int now = exchange.getProperty(ServiceCall.RESULT, Integer.class);
        JobEffects fx = store.stepWrites().effects(o.lock);
        if (fx.unresolved(JobEffects.STORAGE)) {
            String before = fx.get(JobEffects.STORAGE).detail();
            if (before.startsWith(o.ark + " v") && now > Integer.parseInt(before.substring(o.ark.length() + 2))) {
                LOG.warn("job {} batch {}: an earlier attempt's storage answer was lost; storage has {} version {} "
                        + "since: taken as that attempt's, not stored again", o.job().id(), o.job().batchId(), o.ark,
                        now);
                exchange.setProperty(ServiceCall.VERSION, keep(o, now));
                exchange.setProperty("storeNeeded", false);
                return;
            }
        }
        o.versionBefore = o.ark + " v" + now;
        exchange.setProperty("storeNeeded", true);
    }

    /** Before the add: recorded as begun (fenced) with the version seen before it. */
    public void beginStore(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        // fenced as the mint's record is (IdentifiersStep.beginMint); mrt-zk's /jobs/JID/store describes the add
        String node = o.profile.storageNode() == null ? "" : o.profile.storageNode().toString();
        store.stepWrites().storeStarted(o.lock, o.versionBefore,
                addresses.fileUrl(o.job().batchId(), o.job().id(), o.wd.system().resolve(StorageManifest.NAME),
                        "system/" + StorageManifest.NAME),
                (o.update ? "update/" : "add/") + node + "/" + URLEncoder.encode(o.ark, StandardCharsets.UTF_8),
                o.deletes.stream().map(Deletions.Delete::name).toList());
    }

    public void stored(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        exchange.setProperty(ServiceCall.VERSION, keep(o, exchange.getProperty(ServiceCall.RESULT, Integer.class)));
    }

    private StoredVersion keep(ObjectInProcess o, int version) {
        StoredVersion v = new StoredVersion(o.ark, version, addresses.manifestUrl(o.profile, o.ark),
                o.update ? "update" : "add", o.deletes.stream().map(Deletions.Delete::name).toList());
        store.stepWrites().storeDone(o.lock, new String(QueueJson.write(v), StandardCharsets.UTF_8), v.manifestUrl());
        return v;
    }

    /**
     * The move to recording says what storage made. Its answer is already recorded under the job
     * ({@link #keep}, or the earlier attempt's), where recording and the report read it
     * ({@link StoredVersions#of}): no file is written for it.
     */
    public void keepVersion(Exchange exchange) {
        StoredVersion v = exchange.getProperty(ServiceCall.VERSION, StoredVersion.class);
        JobExchange.change(exchange, c -> Change.because(describe(v)));
    }

    /**
     * "stored ark:/... version 2 (update mode, 1 file deleted)": the job's transition reason says how
     * the version was made.
     */
    static String describe(StoredVersion v) {
        return "stored " + v.ark() + " version " + v.version() + " (" + v.mode() + " mode"
                + (v.deleted().isEmpty() ? ""
                        : ", " + v.deleted().size() + " file(s) deleted: " + String.join(", ", v.deleted()))
                + ")";
    }

    /**
     * An operator's own call in a route (README, "Changing the routes": a monitor told of each stored object):
     * {@code effectDue} says whether the call named by the property {@code effect} is still due for this job, that
     * is not recorded as done under it. A job passes storing again after a requeue or a restart; the call is made
     * until one attempt is answered, and then never again.
     */
    public void effectDue(Exchange exchange) {
        String name = effectName(exchange);
        exchange.setProperty("effectDue", !store.stepWrites().effects(JobExchange.lock(exchange)).done(name));
    }

    /**
     * The call named by {@code effect} recorded as done under the job, at once (a transaction of its own, fenced
     * by the job's lock): a host that dies between the answer and this record leaves the call due, so it is made
     * at least once, and once after any answer recorded.
     */
    public void effectDone(Exchange exchange) {
        store.stepWrites().effectDone(JobExchange.lock(exchange), effectName(exchange), "answered");
    }

    private static String effectName(Exchange exchange) {
        String name = exchange.getProperty(EFFECT, String.class);
        if (name == null || !EFFECT_NAME.matcher(name).matches() || OWN_EFFECTS.contains(name)) {
            throw new IllegalArgumentException("exchange property '" + EFFECT + "' is " + (name == null ? "not set"
                    : "'" + name + "'") + ": name the call in lower case ([a-z][a-z0-9_-], at most 40), not one of"
                    + " the queue's own effects " + OWN_EFFECTS.stream().sorted().toList()
                    + " (setProperty: {name: effect, constant: monitor} before storeStep.effectDue)");
        }
        return name;
    }
}
