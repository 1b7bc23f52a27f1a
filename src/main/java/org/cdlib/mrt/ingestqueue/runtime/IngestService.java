package org.cdlib.mrt.ingestqueue.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.component.properties.PropertiesComponent;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.DefaultMainShutdownStrategy;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.cdlib.mrt.ingestqueue.camel.JobFailure;
import org.cdlib.mrt.ingestqueue.config.Configuration;
import org.cdlib.mrt.ingestqueue.config.StartupException;
import org.cdlib.mrt.ingestqueue.history.HandOver;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.history.MerrittBatchCapture;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.BatchActions;
import org.cdlib.mrt.ingestqueue.queue.batches.BatchWatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service: camel-main with the YAML routes of {@code routes/}, one Curator session for the
 * whole process, and an embedded ZooKeeper when {@code zookeeper.connect} is not set.
 * Configuration ({@link Configuration}): the overrides given here (tests, the demo), over the
 * environment, over {@code -D} system properties, over {@code application.properties} in the
 * working directory (or {@code ingest.config.dir}), over the copy in the jar.
 */
public final class IngestService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IngestService.class);

    private final Main main = new Main();
    private final Configuration configuration;
    private final Map<String, Object> beans;
    private EmbeddedZooKeeper zookeeper;
    private CuratorFramework client;
    private QueueStore store;
    private BatchWatch batchWatch;
    private HistoryStore history;
    private MerrittBatchCapture merrittCapture;
    /** Removes batches Merritt's tools set Deleted, one at a time, off the watch's thread (a large one takes long). */
    private ExecutorService deletions;
    private ProfileDirectory profiles;
    /** The route files camel-main is told to load (camel.main.routes-include-pattern when set). */
    private final String routesInclude;

    public IngestService(Map<String, String> overrides) {
        this(overrides, Map.of());
    }

    /** With {@code beans} bound over what the modules bound (tests replace steps this way). */
    public IngestService(Map<String, String> overrides, Map<String, Object> beans) {
        this(Configuration.load(overrides), beans);
    }

    /** With its configuration's sources given (tests: an environment and system properties of their own). */
    IngestService(Configuration configuration, Map<String, Object> beans) {
        this.configuration = configuration;
        this.beans = beans;
        // Camel's own lookup would let the jar's copy win over the working directory's file and -D win
        // over the environment: every value is read from the Configuration instead, in its order
        main.setDefaultPropertyPlaceholderLocation("false");
        // -D camel.* keys come through the Configuration
        main.configure().setAutoConfigurationSystemPropertiesEnabled(false);
        routesInclude = configuration.setting("camel.main.routes-include-pattern").map(Configuration.Setting::value)
                .orElse(Files.isDirectory(Path.of("routes")) ? "file:routes/*.yaml" : "classpath:routes/*.yaml");
        if (configuration.setting("camel.main.routes-include-pattern").isEmpty()) {
            main.configure().withRoutesIncludePattern(routesInclude);
        }
        main.addMainListener(new MainListenerSupport() {
            @Override
            public void beforeInitialize(BaseMainSupport m) {
                var pc = m.getCamelContext().getPropertiesComponent();
                pc.addPropertiesSource(configuration.camelSource());
                if (pc instanceof PropertiesComponent p) {
                    p.setSystemPropertiesMode(PropertiesComponent.SYSTEM_PROPERTIES_MODE_NEVER);
                    p.setEnvironmentVariableMode(PropertiesComponent.ENVIRONMENT_VARIABLES_MODE_NEVER);
                }
            }

            @Override
            public void beforeConfigure(BaseMainSupport m) {
                try {
                    wire(m.getCamelContext());
                } catch (StartupException e) {
                    closeQueue();
                    throw e;
                } catch (Exception e) {
                    closeQueue(); // an embedded ZooKeeper or a session left running would keep the JVM alive
                    throw new StartupException(e.getMessage(), e);
                }
            }

            @Override
            public void afterStart(BaseMainSupport m) {
                LOG.info("ingest-queue running: {} routes started", m.getCamelContext().getRoutes().size());
            }

            @Override
            public void afterStop(BaseMainSupport m) {
                closeQueue();
            }
        });
    }

    /** Runs until the JVM is asked to stop (SIGTERM, Ctrl-C); then stops gracefully. */
    public void run() throws Exception {
        StartChecks.run(configuration, routesInclude, beans);
        try {
            main.run();
        } catch (Exception e) {
            // a start that failed has nothing to stop: camel-main's JVM hook would log the caller's exit as a
            // SIGTERM and a shutdown after the line that says why (Main)
            main.getShutdownStrategy().shutdown();
            throw e;
        }
    }

    /** Starts without blocking (tests, the demo). */
    public IngestService start() throws Exception {
        if (main.getShutdownStrategy() instanceof DefaultMainShutdownStrategy s) {
            s.disableHangupSupport(); // the caller owns the lifecycle
        }
        StartChecks.run(configuration, routesInclude, beans);
        main.start();
        return this;
    }

    public CamelContext camel() {
        return main.getCamelContext();
    }

    public QueueStore store() {
        return store;
    }

    /** The watch on Merritt's batch writes (tests). */
    public BatchWatch batchWatch() {
        return batchWatch;
    }

    /** Stops taking work, lets work in hand reach its transition, closes the session. */
    @Override
    public void close() {
        try {
            main.stop();
        } catch (Exception e) {
            LOG.warn("stopping: {}", e.getMessage());
        }
        closeQueue();
    }

    /** The configuration this service reads, and where each value came from. */
    public Configuration configuration() {
        return configuration;
    }

    private void wire(CamelContext camel) throws Exception {
        configuration.logSources();
        QueueContext cfg = new QueueContext(camel, null, null);
        // before anything starts: a service that cannot serve says why and stops, holding nothing open
        profiles = ProfileDirectory.forStartup(
                profileDirectory(Path.of(cfg.property("ingest.profiles", "./profiles"))));
        int httpPort = cfg.intProperty("ingest.http.port", 8080);
        if (cfg.booleanProperty("ingest.http.enabled", true) && httpPort > 0) {
            EmbeddedZooKeeper.requireFreePort(cfg.property("ingest.http.host", "0.0.0.0"), httpPort, "the HTTP port",
                    "ingest.http.port");
        }
        String connect = cfg.property("zookeeper.connect").orElse(null);
        if (connect == null) {
            zookeeper = EmbeddedZooKeeper.start(Path.of(cfg.property("zookeeper.embedded.dir", "./data/zookeeper")),
                    cfg.intProperty("zookeeper.embedded.port", 2181));
            connect = zookeeper.connectString();
        }
        Duration sessionTimeout = cfg.durationProperty("zookeeper.session-timeout", Duration.ofSeconds(30));
        Duration connectTimeout = cfg.durationProperty("zookeeper.connection-timeout", Duration.ofSeconds(15));
        client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs((int) connectTimeout.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(200, 10, 5000))
                .build();
        // the client's reconnect lines (a WARN and a trace per try) held back: the wait ends in one line
        try (FirstConnectionQuiet.Waiting waiting = FirstConnectionQuiet.waiting()) {
            client.start();
            if (!client.blockUntilConnected((int) connectTimeout.toSeconds(), TimeUnit.SECONDS)) {
                client.close(); // its last tries while the lines are still held back
                client = null;
                throw new IOException("cannot reach ZooKeeper at " + connect + " within " + connectTimeout.toSeconds()
                        + " s (check " + configuration.setting("zookeeper.connect").map(Object::toString)
                                .orElse("zookeeper.connect") + ")"
                        + waiting.lastProblem().map(p -> ": the last try: " + p).orElse(""));
            }
        }
        store = new QueueStore(client, Path.of(cfg.property("ingest.home", "./data/queue")),
                cfg.intProperty("ingest.creation-chunk", 100)).start();
        // mrt-zk's workers move jobs into and out of downloading without the disk counters (issue 42)
        store.healSpace();
        store.batches().maxOpen(cfg.intProperty("ingest.queue.max-open-batches", 10_000));
        // a completed job keeps what mrt-zk's tools read unless no Merritt tool shares this ZooKeeper (issue 42)
        store.jobs().merrittNeighbours(cfg.booleanProperty("ingest.merritt.neighbours", true));
        store.batches().maxOpenPerDepositor(cfg.intProperty("ingest.queue.max-open-batches-per-depositor", 1_000));
        // /hosts/<id>: the dashboard's hosts page, drain
        store.registerHost(cfg.property("ingest.host.id").orElse(null));
        // Merritt's batch writes heard within a moment on every host (issue 42): intake, index heals, removed roots
        store.merrittBatches().grace(cfg.durationProperty("ingest.merritt.status-grace", Duration.ofSeconds(60)));
        deletions = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "merritt-deletions");
            t.setDaemon(true);
            return t;
        });
        // finished work leaves ZooKeeper only once history has it (issue 44); a database down delays
        // that, not the start the default is a file beside the jobs' working directories: this
        // host's own (hosts that share the work share a PostgreSQL database: ingest.history.url)
        history = new HistoryStore(cfg.property("ingest.history.url",
                        "jdbc:h2:file:" + store.ingestHome().resolve(".history").toAbsolutePath() + "/history"),
                cfg.property("ingest.history.user").orElse(null), cfg.property("ingest.history.password").orElse(null));
        HandOver handOver = new HandOver(store, history);
        store.keepBeforeRemoval(handOver::keep);
        merrittCapture = new MerrittBatchCapture(store, handOver);
        store.addListener(merrittCapture); // batches Merritt's reporter reports, before Merritt's cleanup deletes them
        camel.getRegistry().bind("history", history);
        camel.getRegistry().bind("handOver", handOver);
        BatchActions batchActions = new BatchActions(store, Clock.systemUTC());
        batchWatch = new BatchWatch(store.calls(), store.batches(), store.merrittBatches())
                .onDeleted(bid -> deletions.execute(() -> batchActions.finishDeletedBatch(bid, "Merritt's tools")))
                .start();
        // cleanup and the reporting sweep run on one host at a time (routePolicy in their route files);
        // the elections name this host as the hosts page does
        ElectedRoutes.install(camel, client, store.hosts().id(),
                (route, running) -> { // shown on the hosts page
                    QueueStore s = store; // null once the queue is closed (a lead given up at the stop)
                    if (s != null) {
                        s.hosts().leads(route, running);
                    }
                });
        profiles.watch(cfg.durationProperty("ingest.profiles.reload", Duration.ofSeconds(5)));
        camel.getRegistry().bind("queueStore", store);
        camel.getRegistry().bind("profiles", profiles);
        QueueContext ctx = new QueueContext(camel, store, profiles);
        for (QueueModule module : ServiceLoader.load(QueueModule.class)) {
            module.bind(ctx);
            LOG.debug("module {} bound", module.getClass().getSimpleName());
        }
        camel.getRegistry().bind("expectedFailure", JobFailure.expected());
        camel.getRegistry().bind("unexpectedFailure", JobFailure.unexpected());
        beans.forEach((name, bean) -> {
            camel.getRegistry().unbind(name); // the registry keeps one bean per name and type otherwise
            camel.getRegistry().bind(name, bean);
        });
        LOG.info("queue ready: ZooKeeper {}, working directories under {}, {} profile(s) from {}", connect,
                store.ingestHome(), profiles.all().size(), profiles.directory());
    }

    /** The profiles directory; on a first start it is created with the bundled demo profile. */
    private static Path profileDirectory(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            Files.createDirectories(dir);
            try (InputStream in = IngestService.class.getResourceAsStream("/profiles/demo_content")) {
                if (in != null) {
                    Files.copy(in, dir.resolve("demo_content"));
                    LOG.info("created {} with the demo profile demo_content", dir.toAbsolutePath());
                }
            }
        }
        return dir;
    }

    private synchronized void closeQueue() {
        if (profiles != null) {
            profiles.close();
        }
        if (batchWatch != null) {
            batchWatch.close();
            batchWatch = null;
        }
        if (deletions != null) {
            deletions.shutdownNow(); // a removal cut short is finished by the next cleanup
            deletions = null;
        }
        if (store != null) {
            store.close();
            store = null;
        }
        if (merrittCapture != null) {
            merrittCapture.close();
            merrittCapture = null;
        }
        if (history != null) {
            history.close();
            history = null;
        }
        if (client != null) {
            client.close();
            client = null;
        }
        if (zookeeper != null) {
            zookeeper.close();
            zookeeper = null;
        }
    }
}
