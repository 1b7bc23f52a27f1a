package org.cdlib.mrt.ingestqueue.steps;

import java.util.List;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.JobLock;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.SendDeadline;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.services.Storage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * Recording's domain steps ({@code routes/recording.yaml}): the job succeeds only once
 * inventory has the object, so a depositor is never told of an object that cannot be found.
 * The add is recorded under the job; the local index of local ids is updated as well, also when
 * inventory is Merritt's.
 */
public final class RecordStep {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RecordStep.class);
    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final H2Inventory localIndex;
    private final Storage storage;
    private final boolean merrittInventory;

    /**
     * @param storage with it, an update version's files are listed from storage (carried-forward ones included); may be null
     * @param merrittInventory inventory is Merritt's: the local index is added to after it
     */
    public RecordStep(QueueStore store, ProfileRegistry profiles, H2Inventory localIndex, Storage storage, boolean merrittInventory) {
        this.store = store;
        this.profiles = profiles;
        this.localIndex = localIndex;
        this.storage = storage;
        this.merrittInventory = merrittInventory;
    }

    /** What recording tells inventory. */
    record Recording(JobLock lock, Profile profile, StoredVersion version, List<String> localIds,
            List<ManifestFile> files) {
        static final String PROPERTY = "ingestqueue.recording";

        static Recording of(Exchange exchange) {
            Recording r = exchange.getProperty(PROPERTY, Recording.class);
            if (r == null) {
                throw new IllegalStateException("no recording on this exchange: the route must begin with recordStep.begin");
            }
            return r;
        }

        String key() {
            return version.ark() + " v" + version.version();
        }
    }

    /** Storage's answer kept by processing; says whether an earlier attempt's add already reached inventory. */
    public void begin(Exchange exchange) throws Exception {
        SendDeadline.disarm(); // inventory's calls are not fenced: a deadline this thread's last job left unused is not theirs
        JobLock lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        WorkingDirectory wd = WorkingDirectory.of(store.ingestHome(), job.configuration().workingDir());
        JobEffects fx = store.records().effects(lock);
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
        boolean done = fx.done(JobEffects.INVENTORY) && r.key().equals(fx.get(JobEffects.INVENTORY).detail());
        if (done) {
            LOG.info("job {} batch {}: inventory already has {} (an earlier attempt recorded it); not sent again",
                    job.id(), job.batchId(), r.key());
        }
        exchange.setProperty("recordedEarlier", done);
    }

    /**
     * Inventory's add of a version it has is answered without a second record (checkVersion): an
     * add whose answer was lost is sent again, so nothing is recorded before it (a "started" record
     * would decide nothing) and its "done" rides with the job's move.
     */
    public void added(Exchange exchange) {
        Recording r = Recording.of(exchange);
        store.records().effectDoneWithNextWrite(r.lock(), JobEffects.INVENTORY, r.key());
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
