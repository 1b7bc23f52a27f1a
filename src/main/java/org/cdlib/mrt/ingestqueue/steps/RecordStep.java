package org.cdlib.mrt.ingestqueue.steps;

import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.Inventory;
import org.cdlib.mrt.ingestqueue.services.Storage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * Recording: the job succeeds only once inventory has the object, so a depositor is never told
 * of an object that cannot be found. The local index of local ids is updated as well, also
 * when inventory is Merritt's.
 */
public final class RecordStep implements Processor {
    private final QueueStore store;
    private final ProfileRegistry profiles;
    private final Inventory inventory;
    private final H2Inventory localIds;
    private final Storage storage;

    public RecordStep(QueueStore store, ProfileRegistry profiles, Inventory inventory, H2Inventory localIds) {
        this(store, profiles, inventory, localIds, null);
    }

    /** With {@code storage}, an update version's files are listed from storage (carried-forward ones included). */
    public RecordStep(QueueStore store, ProfileRegistry profiles, Inventory inventory, H2Inventory localIds, Storage storage) {
        this.storage = storage;
        this.store = store;
        this.profiles = profiles;
        this.inventory = inventory;
        this.localIds = localIds;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        org.cdlib.mrt.ingestqueue.queue.JobLock lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        WorkingDirectory wd = WorkingDirectory.of(store.ingestHome(), job.configuration().workingDir());
        StoredVersion v = ProcessStep.stored(wd.root());
        List<Inventory.ManifestFile> files = null;
        if (storage != null && "update".equals(v.mode())) {
            files = storage.versionFiles(v.ark(), v.version());
        }
        if (files == null) {
            files = StorageManifest.build(wd.root(), (f, name) -> name).files();
        }
        String key = v.ark() + " v" + v.version();
        JobEffects fx = store.effects(lock);
        if (fx.done(JobEffects.INVENTORY) && key.equals(fx.get(JobEffects.INVENTORY).detail())) {
            org.slf4j.LoggerFactory.getLogger(RecordStep.class).info("job {} batch {}: inventory already has {} (an earlier "
                    + "attempt recorded it); not sent again", job.id(), job.batchId(), key);
        } else {
            // inventory's add of a version it has is answered without a second record (checkVersion), so an
            // add whose answer was lost is sent again
            store.effectStarted(lock, JobEffects.INVENTORY, key);
            inventory.add(profile, v, job.identifiers().localId(), files);
            store.effectDone(lock, JobEffects.INVENTORY, key);
        }
        if (inventory != localIds) {
            localIds.add(profile, v, job.identifiers().localId(), files);
        }
        JobExchange.change(exchange, c -> org.cdlib.mrt.ingestqueue.queue.Change.because(
                "inventory has " + v.ark() + " version " + v.version() + " (" + v.mode() + " mode)"));
    }
}
