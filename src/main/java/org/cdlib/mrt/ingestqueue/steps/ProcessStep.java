package org.cdlib.mrt.ingestqueue.steps;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.DepositorMetadata;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.objects.SystemFiles;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.Change;
import org.cdlib.mrt.ingestqueue.queue.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.JobLock;
import org.cdlib.mrt.ingestqueue.queue.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.services.StorageAddresses;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * Processing's domain steps, called one by one from {@code routes/processing.yaml} between the
 * outside calls (sub-routes {@code direct:storage-version}, {@code direct:storage-add} …): the
 * working directory and the depositor's metadata; then, once {@link IdentifiersStep} has settled
 * the ARK, the object's lock, the system files, the storage manifest, and the new version in
 * storage, each outside effect recorded under the job ({@code /jobs/JID/effects}) before and after. The
 * depositor's {@code producer/mrt-erc.txt} and {@code mrt-dc.xml} take precedence over the
 * form's and the manifest's values ({@link DepositorMetadata}); in update mode the version
 * applies {@code mrt-delete.txt} ({@link Deletions}), which is moved to {@code system/} in either mode.
 */
public final class ProcessStep {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProcessStep.class);
    static final String STORED = ".stored.json";

    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final StorageAddresses addresses;

    public ProcessStep(QueueStore store, ProfileRegistry profiles, StorageAddresses addresses) {
        this.store = store;
        this.profiles = profiles;
        this.addresses = addresses;
    }

    /** The working directory, the depositor's metadata, and what the calls need to know of the object. */
    public void begin(Exchange exchange) throws Exception {
        JobLock lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        WorkingDirectory wd = WorkingDirectory.of(store.ingestHome(), job.configuration().workingDir());
        if (!Files.isDirectory(wd.producer())) {
            throw new IllegalStateException("working directory " + wd.producer() + " is missing: requeue the job from downloading");
        }
        // the depositor's producer/mrt-erc.txt and mrt-dc.xml win over the form's and the manifest's (CONTRACTS §5)
        DepositorMetadata depositor = DepositorMetadata.read(wd.producer());
        JobConfiguration config = depositor.apply(job.configuration());
        Identifiers given = depositor.merge(job.identifiers());
        Job described = new Job(job.id(), job.batchId(), config, job.status(), job.priority(), job.spaceNeeded(), given,
                job.statusVersion(), job.lockOwner());
        ObjectInProcess o = new ObjectInProcess(lock, profile, wd, described, "update".equalsIgnoreCase(config.submissionMode()));
        exchange.setProperty(ObjectInProcess.PROPERTY, o);
        exchange.setProperty(ServiceCall.PROFILE, profile);
        exchange.setProperty(ServiceCall.DESCRIPTION, config);
        exchange.setProperty(ServiceCall.LOCAL_IDS, given.localId());
        exchange.setProperty("localIdCount", given.localId().size());
        o.ark(exchange, o.ark);
    }

    /**
     * The last look before a request that must not be sent twice (a mint, a storage add): this
     * worker still holds the job. It sits right before the send, after the effect record, so a
     * worker paused past its session (another host has the job now) sends nothing when it wakes.
     */
    public void fence(Exchange exchange) {
        ObjectInProcess.of(exchange).lock.verifyHeld();
    }

    /** One writer per object, on any host: a job whose object another job is writing waits its turn without a worker. */
    public void lockObject(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        String writer = store.records().lockObject(o.lock, o.ark);
        exchange.setProperty("objectBusy", writer != null);
        if (writer != null) {
            JobExchange.stay(exchange, "object " + o.ark + " is being written by job " + writer + "; waiting for it");
        }
    }

    /** {@code mrt-delete.txt}, the system files and the storage manifest; says whether an earlier attempt stored the version. */
    public void writeSystemFiles(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        Job job = o.job();
        List<Deletions.Delete> deletes = Deletions.take(o.wd.producer(), o.wd.system()); // never a producer file
        if (!o.update && !deletes.isEmpty()) {
            LOG.info("job {} batch {}: mrt-delete.txt in an add-mode submission: kept as system/mrt-delete.txt, not applied",
                    job.id(), job.batchId());
            deletes = List.of();
        }
        o.deletes = deletes;
        o.lock.verifyHeld(); // fencing: a worker that lost the job writes nothing into the shared working directory
        SystemFiles.write(o.wd.system(), o.described.configuration(), o.identifiers());
        StorageManifest manifest = StorageManifest.build(o.wd.root(),
                (file, name) -> addresses.fileUrl(job.batchId(), job.id(), file, name));
        Files.writeString(o.wd.system().resolve(StorageManifest.NAME), manifest.text());
        exchange.setProperty(ServiceCall.MANIFEST, manifest.text());
        if (o.update) {
            exchange.setProperty(ServiceCall.DELETES, deletes);
        } else {
            exchange.removeProperty(ServiceCall.DELETES);
        }
        JobEffects fx = store.records().effects(o.lock);
        StoredVersion earlier = null;
        if (fx.done(JobEffects.STORAGE)) {
            earlier = QueueJson.read("effects/storage", fx.get(JobEffects.STORAGE).detail().getBytes(StandardCharsets.UTF_8),
                    StoredVersion.class);
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
     * After asking storage for the object's version: an add whose answer was lost (begun, never
     * done) took effect when the version moved past the one seen before it, and is not sent again.
     */
    public void sawVersion(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        int now = exchange.getProperty(ServiceCall.RESULT, Integer.class);
        JobEffects fx = store.records().effects(o.lock);
        if (fx.unresolved(JobEffects.STORAGE)) {
            String before = fx.get(JobEffects.STORAGE).detail();
            if (before.startsWith(o.ark + " v") && now > Integer.parseInt(before.substring(o.ark.length() + 2))) {
                LOG.warn("job {} batch {}: an earlier attempt's storage answer was lost; storage has {} version {} since: "
                        + "taken as that attempt's, not stored again", o.job().id(), o.job().batchId(), o.ark, now);
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
        store.records().effectStarted(o.lock, JobEffects.STORAGE, o.versionBefore); // fenced as the mint's record is (IdentifiersStep.beginMint)
    }

    public void stored(Exchange exchange) {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        exchange.setProperty(ServiceCall.VERSION, keep(o, exchange.getProperty(ServiceCall.RESULT, Integer.class)));
    }

    private StoredVersion keep(ObjectInProcess o, int version) {
        StoredVersion v = new StoredVersion(o.ark, version, addresses.manifestUrl(o.profile, o.ark), o.update ? "update" : "add",
                o.deletes.stream().map(Deletions.Delete::name).toList());
        store.records().effectDone(o.lock, JobEffects.STORAGE, new String(QueueJson.write(v), StandardCharsets.UTF_8));
        return v;
    }

    /** Storage's answer is kept for recording, in the working directory and beside it for the report. */
    public void keepVersion(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        StoredVersion v = exchange.getProperty(ServiceCall.VERSION, StoredVersion.class);
        Files.write(o.wd.root().resolve(STORED), QueueJson.write(v));
        StoredVersions.write(store.ingestHome(), o.job().batchId(), o.job().id(), v); // outlives the working directory
        JobExchange.change(exchange, c -> Change.because(describe(v)));
    }

    /** "stored ark:/... version 2 (update mode, 1 file deleted)": the job's transition reason says how the version was made. */
    static String describe(StoredVersion v) {
        return "stored " + v.ark() + " version " + v.version() + " (" + v.mode() + " mode"
                + (v.deleted().isEmpty() ? "" : ", " + v.deleted().size() + " file(s) deleted: " + String.join(", ", v.deleted()))
                + ")";
    }

    static StoredVersion stored(Path workingDir) throws java.io.IOException {
        Path f = workingDir.resolve(STORED);
        if (!Files.exists(f)) {
            throw new IllegalStateException("no storage answer in " + f + ": requeue the job from processing");
        }
        return QueueJson.read(f.toString(), Files.readAllBytes(f), StoredVersion.class);
    }
}
