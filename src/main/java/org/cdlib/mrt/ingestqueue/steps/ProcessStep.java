package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.objects.DepositorMetadata;
import org.cdlib.mrt.ingestqueue.objects.SystemFiles;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Processing's domain steps, called one by one from {@code routes/processing.yaml} between the
 * outside calls: the working directory and the depositor's metadata; then, once
 * {@link IdentifiersStep} has settled the ARK, the object's lock and the system files: the object
 * as storing sends it ({@link StoreStep}). The depositor's {@code producer/mrt-erc.txt}
 * and {@code mrt-dc.xml} take precedence over the form's and the manifest's values
 * ({@link DepositorMetadata}); {@code mrt-delete.txt} ({@link Deletions}) is moved to
 * {@code system/} in either mode and its lines checked here, before anything is stored.
 */
public final class ProcessStep {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessStep.class);
    static final String STORED = ".stored.json";

    private final QueueStore store;
    private final ProfileRegistry profiles;

    public ProcessStep(QueueStore store, ProfileRegistry profiles) {
        this.store = store;
        this.profiles = profiles;
    }

    /** The working directory, the depositor's metadata, and what the calls need to know of the object. */
    public void begin(Exchange exchange) throws Exception {
        HeldJob lock = JobExchange.lock(exchange);
        Job job = lock.job();
        Profile profile = profiles.require(job.configuration().profileName());
        WorkingDirectory wd = workingDirectory(store, job);
        // the depositor's producer/mrt-erc.txt and mrt-dc.xml win over the form's and the manifest's (CONTRACTS §5)
        DepositorMetadata depositor = DepositorMetadata.read(wd.producer());
        JobConfiguration config = depositor.apply(job.configuration());
        Identifiers given = depositor.merge(job.identifiers());
        Job described = new Job(job.id(), job.batchId(), config, job.status(), job.priority(), job.spaceNeeded(), given,
                job.statusVersion(), job.lockOwner());
        boolean update = "update".equalsIgnoreCase(config.submissionMode());
        ObjectInProcess o = new ObjectInProcess(lock, profile, wd, described, update);
        exchange.setProperty(ObjectInProcess.PROPERTY, o);
        exchange.setProperty(ServiceCall.PROFILE, profile);
        exchange.setProperty(ServiceCall.DESCRIPTION, config);
        exchange.setProperty(ServiceCall.LOCAL_IDS, given.localId());
        exchange.setProperty("localIdCount", given.localId().size());
        o.ark(exchange, o.ark);
    }

    /** The job's working directory, which processing and storing read (a host with its own disk may not have it). */
    static WorkingDirectory workingDirectory(QueueStore store, Job job) throws FetchException {
        WorkingDirectory wd = WorkingDirectory.of(store.ingestHome(), job.configuration().workingDir());
        if (!Files.isDirectory(wd.producer())) {
            throw new IllegalStateException("working directory " + wd.producer()
                    + " is missing: requeue the job from downloading");
        }
        return wd;
    }

    /**
     * The last look before a mint, which must not be sent twice (storing has its own before the
     * storage add, {@link StoreStep#fence}): this worker still holds the job. It sits right before
     * the send, after the effect record, so a worker paused past its session (another host has the
     * job now) sends nothing when it wakes.
     */
    public void fence(Exchange exchange) {
        Run.current().sendBy(ObjectInProcess.of(exchange).lock.verifyHeldUntil());
    }

    /**
     * One writer per object, on any host: a job whose object another job is writing waits its turn
     * without a worker.
     */
    public void lockObject(Exchange exchange) {
        ObjectInProcess.of(exchange).lockObject(store, exchange);
    }

    /**
     * {@code mrt-delete.txt} checked and the system files written. The storage manifest is storing's
     * to write: the file URLs Merritt storage fetches are signed with an expiry, so they are signed
     * right before the add, however long the job waited in storing (held, failed and requeued).
     */
    public void writeSystemFiles(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        Job job = o.job();
        // never a producer file; a line leaving producer/ fails the job here, before anything is stored
        List<Deletions.Delete> deletes = Deletions.take(o.wd.producer(), o.wd.system());
        if (!o.update && !deletes.isEmpty()) {
            LOG.info("job {} batch {}: mrt-delete.txt in an add-mode submission: kept as system/mrt-delete.txt, "
                    + "not applied", job.id(), job.batchId());
        }
        // fencing: a worker that lost the job writes nothing into the shared working directory
        o.lock.verifyHeld();
        SystemFiles.write(o.wd.system(), o.described.configuration(), o.identifiers());
        String toDelete = o.update && !deletes.isEmpty() ? ", " + deletes.size() + " file(s) to delete" : "";
        JobExchange.change(exchange, c -> Change.because("prepared " + o.ark + " for storing ("
                + (o.update ? "update" : "add") + " mode" + toDelete + ")"));
    }

    /** Storage's answer as a release before this one kept it for recording, in the working directory. */
    static StoredVersion stored(Path workingDir) throws IOException {
        Path f = workingDir.resolve(STORED);
        if (!Files.exists(f)) {
            throw new IllegalStateException("no storage answer in " + f + ": requeue the job from storing");
        }
        return QueueJson.read(f.toString(), Files.readAllBytes(f), StoredVersion.class);
    }
}
