package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;

/** Jobs in a real queue store, locked and put on an exchange as the zkqueue consumer does. */
final class StepTestSupport {
    static final CamelContext CAMEL = new DefaultCamelContext();

    private StepTestSupport() {
    }

    /**
     * A job of profile {@code with_callback} (its HandlerCallback set), otherwise as {@link #config(String, String)}
     * makes one, with no working directory, file fields or ERC.
     */
    static JobConfiguration withCallbackProfile() {
        JobConfiguration c = config("http://x/b.txt", "file");
        return new JobConfiguration(null, "with_callback", c.submitter(), c.payloadUrl(), c.payloadType(),
                c.responseType(), c.submissionMode(), null, c.localId(), null, null, null, null, null, null, null,
                null, Map.of());
    }

    static JobConfiguration config(String payloadUrl, String payloadType) {
        return config(payloadUrl, payloadType, null, null, null, null);
    }

    static JobConfiguration config(String payloadUrl, String payloadType, String fileName, String digestType,
            String digestValue, Long fileSize) {
        return new JobConfiguration(null, "demo_content", "tester", payloadUrl, payloadType, "json", "add", null,
                "loc1", fileName, digestType, digestValue, fileSize, "who", "what", "when", null, Map.of());
    }

    /** A job of a new batch (the batch in processing), locked by this test. */
    static HeldJob lockedJob(QueueStore store, JobConfiguration config, int priority) {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        HeldBatch batch = store.batches().tryLock(bid, "test").orElseThrow();
        List<String> jids = store.batches()
                .createJobs(batch, List.of(new NewJob(config, new Identifiers(null, List.of("loc1")), priority)));
        store.moves().transition(batch, BatchState.PROCESSING, "jobs created", null, null);
        return store.claims().tryLockJob(jids.get(0), "test").orElseThrow();
    }

    /** A locked job whose download is done: {@code producer/a.txt} in its working directory. */
    static HeldJob downloadedJob(QueueStore store) throws IOException {
        HeldJob lock = lockedJob(store, config("http://x/a.txt", "file", "a.txt", null, null, null), 5);
        Path producer = Files.createDirectories(
                Path.of(lock.job().configuration().workingDir()).resolve("producer"));
        Files.writeString(producer.resolve("a.txt"), "hello");
        return lock;
    }

    /**
     * The profile {@code demo_content} in {@code dir}, its services
     * (EZID, storage node 7777, callbacks) at {@code base}.
     */
    static ProfileDirectory merrittProfiles(Path dir, String base)
            throws IOException {
        Path p = Files.createDirectories(dir);
        Files.writeString(p.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\n"
                + "Owner: ark:/99999/fk4owner\nStorageNode: 7777\nStorageService: " + base + "/store\n"
                + "ObjectMinterURL: " + base + "/shoulder/ark:/99999/fk4\nCallbackURL: " + base + "/cb\n");
        return new ProfileDirectory(p);
    }

    static Exchange exchange(HeldJob lock) {
        Exchange ex = new DefaultExchange(CAMEL);
        JobExchange.put(ex, lock);
        return ex;
    }

    static String manifest(String... rows) {
        StringBuilder b = new StringBuilder("""
            #%checkm_0.7
            #%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest
            #%prefix | mrt: | http://merritt.cdlib.org/terms#
            #%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#
            #%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified \
            | nfo:fileName | mrt:mimeType
            """);
        for (String r : rows) {
            b.append(r).append('\n');
        }
        return b.append("#%eof\n").toString();
    }

    /** A manifest row; null cells are left empty. */
    static String row(String url, String alg, String digest, Long size, String name) {
        return String.join(" | ", url, n(alg), n(digest), size == null ? "" : size.toString(), "", n(name), "");
    }

    private static String n(String s) {
        return s == null ? "" : s;
    }
}
