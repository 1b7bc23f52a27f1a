package org.cdlib.mrt.ingestqueue.steps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.DepositorMetadata;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.objects.SystemFiles;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.JobLock;
import org.cdlib.mrt.ingestqueue.queue.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.Minter;
import org.cdlib.mrt.ingestqueue.services.ServiceException;
import org.cdlib.mrt.ingestqueue.services.Storage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * Processing (transition.md): the object's identifiers — a local id already bound in the
 * collection reuses its ARK, otherwise one is minted and written to ZooKeeper at once so a
 * restarted job never mints twice — then the system files, the storage manifest, and the new
 * version in storage. The depositor's {@code producer/mrt-erc.txt} and {@code mrt-dc.xml} take
 * precedence over the form's and the manifest's values ({@link DepositorMetadata}); in update mode
 * the version carries forward what the submission does not mention and applies
 * {@code mrt-delete.txt} ({@link Deletions}), which is moved to {@code system/} in either mode. Storage's answer is kept in the working directory for recording.
 */
public final class ProcessStep implements Processor {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProcessStep.class);
    static final String STORED = ".stored.json";

    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final Minter minter;
    private final Storage storage;
    private final org.cdlib.mrt.ingestqueue.services.LocalIds localIds;

    public ProcessStep(QueueStore store, ProfileRegistry profiles, Minter minter, Storage storage,
                       org.cdlib.mrt.ingestqueue.services.LocalIds localIds) {
        this.store = store;
        this.profiles = profiles;
        this.minter = minter;
        this.storage = storage;
        this.localIds = localIds;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
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
        Identifiers ids = identify(lock, profile, given, new Job(job.id(), job.batchId(), config, job.status(), job.priority(),
                job.spaceNeeded(), given, job.statusVersion(), job.lockOwner()));
        String writer = store.lockObject(lock, ids.primary());
        if (writer != null) {
            // one writer per object, on any host: this job waits its turn without holding a worker
            JobExchange.stay(exchange, "object " + ids.primary() + " is being written by job " + writer + "; waiting for it");
            return;
        }
        boolean update = "update".equalsIgnoreCase(config.submissionMode());
        List<Deletions.Delete> deletes = Deletions.take(wd.producer(), wd.system()); // never a producer file
        if (!update && !deletes.isEmpty()) {
            LOG.info("job {} batch {}: mrt-delete.txt in an add-mode submission: kept as system/mrt-delete.txt, not applied",
                    job.id(), job.batchId());
            deletes = List.of();
        }
        lock.verifyHeld(); // fencing: a worker that lost the job writes nothing into the shared working directory
        SystemFiles.write(wd.system(), config, ids);
        StorageManifest manifest = StorageManifest.build(wd.root(),
                (file, name) -> storage.fileUrl(job.batchId(), job.id(), file, name));
        Files.writeString(wd.system().resolve(StorageManifest.NAME), manifest.text());
        StoredVersion v = storeOnce(lock, profile, ids, wd, manifest.text(), update, deletes);
        Files.write(wd.root().resolve(STORED), QueueJson.write(v));
        StoredVersions.write(store.ingestHome(), job.batchId(), job.id(), v); // outlives the working directory, for the report
        JobExchange.change(exchange, c -> org.cdlib.mrt.ingestqueue.queue.Change.because(describe(v)));
    }

    /**
     * Adds the version at most once for this job: a recorded add is reused; an add whose answer
     * was lost (started, never done) is resolved by asking storage whether the object's version
     * moved past the one seen before it, and sent again only when it provably did not.
     */
    private StoredVersion storeOnce(JobLock lock, Profile profile, Identifiers ids, WorkingDirectory wd, String manifest,
            boolean update, List<Deletions.Delete> deletes) throws Exception {
        Job job = lock.job();
        String ark = ids.primary();
        JobEffects fx = store.effects(lock);
        if (fx.done(JobEffects.STORAGE)) {
            StoredVersion v = QueueJson.read("effects/storage", fx.get(JobEffects.STORAGE).detail().getBytes(
                    java.nio.charset.StandardCharsets.UTF_8), StoredVersion.class);
            if (v.ark().equals(ark)) {
                LOG.info("job {} batch {}: {} version {} already stored by an earlier attempt; not stored again",
                        job.id(), job.batchId(), ark, v.version());
                return v;
            }
        }
        int now = storage.currentVersion(profile, ark);
        if (fx.unresolved(JobEffects.STORAGE)) {
            String before = fx.get(JobEffects.STORAGE).detail();
            if (before.startsWith(ark + " v") && now > Integer.parseInt(before.substring(ark.length() + 2))) {
                StoredVersion v = new StoredVersion(ark, now, storage.manifestUrl(profile, ark), update ? "update" : "add",
                        deletes.stream().map(Deletions.Delete::name).toList());
                LOG.warn("job {} batch {}: an earlier attempt's storage answer was lost; storage has {} version {} since: "
                        + "taken as that attempt's, not stored again", job.id(), job.batchId(), ark, now);
                store.effectDone(lock, JobEffects.STORAGE, new String(QueueJson.write(v), java.nio.charset.StandardCharsets.UTF_8));
                return v;
            }
        }
        lock.verifyHeld(); // a worker paused past its session sends nothing
        store.effectStarted(lock, JobEffects.STORAGE, ark + " v" + now);
        StoredVersion v = storage.store(profile, ark, wd.root(), manifest, ids.localId().isEmpty() ? null
                : String.join(";", ids.localId()), update, deletes);
        store.effectDone(lock, JobEffects.STORAGE, new String(QueueJson.write(v), java.nio.charset.StandardCharsets.UTF_8));
        return v;
    }

    /** "stored ark:/... version 2 (update mode, 1 file deleted)": the job's transition reason says how the version was made. */
    static String describe(StoredVersion v) {
        return "stored " + v.ark() + " version " + v.version() + " (" + v.mode() + " mode"
                + (v.deleted().isEmpty() ? "" : ", " + v.deleted().size() + " file(s) deleted: " + String.join(", ", v.deleted()))
                + ")";
    }

    private Identifiers identify(JobLock lock, Profile profile, Identifiers ids, Job described) throws Exception {
        Job job = lock.job();
        JobEffects fx = store.effects(lock);
        String ark = ids.primary();
        for (String localId : ids.localId()) {
            Optional<String> bound = localIds.primaryFor(profile.id(), localId);
            if (bound.isEmpty()) {
                continue;
            }
            if (ark == null) {
                ark = bound.get();
            } else if (!ark.equals(bound.get())) {
                throw new IllegalArgumentException("local id '" + localId + "' is bound to " + bound.get()
                        + " in collection " + profile.id() + ", but the job names " + ark);
            }
        }
        if (fx.unresolved(JobEffects.MINT) && job.identifiers().primary() != null) {
            // an earlier attempt minted this ARK and wrote it to the job; only the record of it was lost
            fx = store.effectDone(lock, JobEffects.MINT, job.identifiers().primary());
        }
        String minted = null;
        if (ark == null) {
            if (fx.unresolved(JobEffects.MINT)) {
                // EZID cannot be asked which ARK a lost answer carried: mint again and say so
                LOG.warn("job {} batch {}: an earlier attempt began minting and recorded no ARK; minting again "
                        + "(if that attempt's mint reached the minter, an unused ARK exists there)", job.id(), job.batchId());
            }
            lock.verifyHeld(); // a worker paused past its session sends nothing
            store.effectStarted(lock, JobEffects.MINT, profile.id());
            ark = minted = minter.mint(profile, described);
        }
        for (String localId : ids.localId()) {
            // bound before the ARK is written: of two hosts minting for one local id at once, one binding wins
            String bound = localIds.bind(profile.id(), localId, ark);
            if (bound.equals(ark)) {
                continue;
            }
            if (minted == null) {
                throw new IllegalArgumentException("local id '" + localId + "' is bound to " + bound + " in collection "
                        + profile.id() + ", but the job names " + ark);
            }
            LOG.warn("job {} batch {}: local id '{}' was bound to {} by another job meanwhile; using it ({} is not used)",
                    job.id(), job.batchId(), localId, bound, minted);
            ark = bound;
        }
        if (!ark.equals(job.identifiers().primary()) || !ids.localId().equals(job.identifiers().localId())) {
            ids = ids.withPrimary(ark);
            store.writeIdentifiers(lock, ids); // before anything else can fail: a retry reuses this ARK
            if (minted != null) {
                fx = store.effectDone(lock, JobEffects.MINT, ark);
            }
        }
        if (fx.done(JobEffects.MINT) && !fx.done(JobEffects.EZID_UPDATE)) {
            // every ARK this job minted gets its update, also when a crash came between the two
            try {
                minter.describe(profile, described, ark);
                store.effectDone(lock, JobEffects.EZID_UPDATE, ark);
            } catch (ServiceException e) {
                // the ARK exists and is recorded; its landing page can be set later, the object must not wait
                LOG.warn("job {} batch {}: {} minted but not described: {}", job.id(), job.batchId(), ark, e.getMessage());
            }
        }
        return ids;
    }

    static StoredVersion stored(Path workingDir) throws java.io.IOException {
        Path f = workingDir.resolve(STORED);
        if (!Files.exists(f)) {
            throw new IllegalStateException("no storage answer in " + f + ": requeue the job from processing");
        }
        return QueueJson.read(f.toString(), Files.readAllBytes(f), StoredVersion.class);
    }
}
