package org.cdlib.mrt.ingestqueue.routes;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.camel.test.junit5.TestExecutionConfiguration;
import org.cdlib.mrt.ingestqueue.batch.BatchModule;
import org.cdlib.mrt.ingestqueue.camel.JobFailure;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.maintenance.MaintenanceModule;
import org.cdlib.mrt.ingestqueue.history.HandOver;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldBatch;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.NewJob;
import org.cdlib.mrt.ingestqueue.report.ReportingModule;
import org.cdlib.mrt.ingestqueue.runtime.ElectedRoutes;
import org.cdlib.mrt.ingestqueue.steps.FetchModule;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One route file of {@code routes/} (with {@code routes/error-handling.yaml}) in camel-test-junit5,
 * consuming from the real queue on a real ZooKeeper, with the step beans the service's own modules
 * bind (so a step is built exactly as in production, from the same properties). A test weaves
 * mocks in with AdviceWith before it starts the context.
 */
abstract class RouteTestSupport extends CamelTestSupport {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp();
    static final WireMockServer HTTP = ZK.http();
    /** The modules that bind the steps of every route under test (not processing, storing, recording, notify). */
    private static final List<QueueModule> MODULES =
            List.of(new FetchModule(), new BatchModule(), new ReportingModule(), new MaintenanceModule());

    final Path dir = ZK.dir();
    QueueStore store;
    ProfileDirectory profiles;
    /** History as the service has it: a database of its own per test (in memory), taking what cleanup removes. */
    HistoryStore history;
    /** Every transition the store commits in this process, as its log line says it. */
    final List<TransitionEvent> transitions = new CopyOnWriteArrayList<>();

    @Override
    public void configureTest(TestExecutionConfiguration configuration) {
        configuration.withUseAdviceWith(true); // each test weaves its mocks in, then starts the context
    }

    /**
     * The elections the routes of one host at a time (cleanup,
     * the reporting sweep) start by, as IngestService sets it up.
     */
    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext c = super.createCamelContext();
        ElectedRoutes.install(c, ZK.client(), "route-test-" + System.nanoTime(), (route, running) -> { });
        return c;
    }

    /** The properties every test starts from: loopback downloads (WireMock), quick timeouts, mail to an outbox. */
    protected Map<String, String> properties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put(AddressPolicy.KEY, AddressPolicy.LOOPBACK);
        p.put("ingest.download.connect-timeout", "PT2S");
        p.put("ingest.download.read-timeout", "PT5S");
        p.put("ingest.download.retries", "1");
        p.put("ingest.download.backoff", "PT0.01S");
        p.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        return p;
    }

    /** History's database: one of the test's own, in memory. */
    protected String historyUrl() {
        return "jdbc:h2:mem:routes" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    }

    /** The modules whose beans the routes under test name. */
    protected List<QueueModule> modules() {
        return MODULES;
    }

    /** The profile {@code demo_content}'s lines after its id and collection. */
    protected String profileLines() {
        return "StorageNode: 1\nNotification.1: curator@example.org\n";
    }

    /**
     * Binds what IngestService binds (queue store, profiles, the failure processors, the modules'
     * beans) with {@link #properties()}, then loads error-handling.yaml and {@code routes/<file>}
     * for each file.
     */
    void load(String... files) throws Exception {
        Properties p = new Properties();
        p.putAll(properties());
        context.getPropertiesComponent().setOverrideProperties(p);
        Path profileDir = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(profileDir.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\n"
                + profileLines());
        profiles = new ProfileDirectory(profileDir);
        store = ZK.store(dir.resolve("queue"));
        store.addListener(transitions::add);
        context.getRegistry().bind("queueStore", store);
        context.getRegistry().bind("profiles", profiles);
        history = new HistoryStore(historyUrl(), null, null);
        HandOver handOver = new HandOver(store, history);
        store.keepBeforeRemoval(handOver::keep);
        context.getRegistry().bind("history", history);
        context.getRegistry().bind("handOver", handOver);
        QueueContext ctx = new QueueContext(context, store, profiles);
        for (QueueModule m : modules()) {
            m.bind(ctx);
        }
        context.getRegistry().bind("expectedFailure", JobFailure.expected());
        context.getRegistry().bind("unexpectedFailure", JobFailure.unexpected());
        var loader = PluginHelper.getRoutesLoader(context);
        loader.loadRoutes(ResourceHelper.resolveMandatoryResource(context, "file:routes/error-handling.yaml"));
        for (String file : files) {
            loader.loadRoutes(ResourceHelper.resolveMandatoryResource(context, "file:routes/" + file));
        }
    }

    /** Loads the file, weaves {@code mock:end} in after the last step of {@code routeId}, and starts the routes. */
    MockEndpoint start(String file, String routeId) throws Exception {
        load(file);
        AdviceWith.adviceWith(context, routeId, a -> a.weaveAddLast().to("mock:end"));
        context.start();
        return getMockEndpoint("mock:end");
    }

    /** Stops the routes before the store they consume from goes. */
    @AfterEach
    void stopRoutes() throws Exception {
        context.stop();
        if (store != null) {
            store.close();
        }
        if (history != null) {
            history.close();
        }
    }

    static JobConfiguration fileJob(String url, String fileName, String digestType, String digest, Long size) {
        return new JobConfiguration(null, "demo_content", "tester", url, "file", "json", "add", null, "loc1", fileName,
                digestType, digest, size, "who", "what", "when", null, Map.of());
    }

    static BatchSubmission submission(String url, String type) {
        return QueueTestSupport.submission("demo_content", "depositor", url, type, "2026-11-22T10:00:00Z");
    }

    /** A job of a new batch (the batch in processing) walked to {@code state} with {@code spaceNeeded}, unlocked. */
    String jobIn(JobState state, JobConfiguration config, long spaceNeeded) {
        String bid = store.batches().create(submission("http://127.0.0.1/manifest.checkm", "batch-manifest"));
        HeldBatch batch = store.batches().tryLock(bid, "test").orElseThrow();
        String jid = store.batches()
                .createJobs(batch, List.of(new NewJob(config, new Identifiers(null, List.of("loc1")), 5)))
                .get(0);
        store.moves().transition(batch, BatchState.PROCESSING, "jobs created", null, null);
        for (JobState at = JobState.PENDING; at != state; at = at.successor()) {
            HeldJob lock = store.claims().tryLockJob(jid, "test").orElseThrow();
            store.moves().transition(lock, at.successor(), Change.because("setup").withSpaceNeeded(spaceNeeded));
        }
        return jid;
    }

    /** Why {@code id} (a job or batch) last moved to {@code to}, as the transition log says. */
    String reasonOf(String id, String to) {
        return transitions.stream().filter(t -> t.id().equals(id) && t.to().equals(to)).reduce((a, b) -> b)
                .map(TransitionEvent::reason).orElseThrow(() -> new AssertionError(id + " never moved to " + to));
    }

    /** Walks a job along {@code states} as the workers of those states would. */
    void walk(String jid, JobState... states) {
        QueueTestSupport.walk(store, jid, states);
    }
}
