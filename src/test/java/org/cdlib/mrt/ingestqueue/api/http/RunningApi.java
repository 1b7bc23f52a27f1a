package org.cdlib.mrt.ingestqueue.api.http;

import java.nio.file.Path;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The service a test class of the API starts once, in its {@code @BeforeAll}, on its {@link QueueFixture}'s
 * ZooKeeper, and talks to over real HTTP; closed after the class. Registered after the fixture, so it
 * closes before the ZooKeeper server does:
 * <pre>
 * &#64;RegisterExtension
 * static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
 * &#64;RegisterExtension
 * static final RunningApi API = new RunningApi(ZK);
 * </pre>
 * The fixture keeps the queue's nodes between tests ({@link QueueFixture#keepNodesBetweenTests}): they
 * are this service's.
 */
public final class RunningApi implements AfterAllCallback {
    private final QueueFixture zk;
    private IngestService service;
    private HttpApi api;

    public RunningApi(QueueFixture zk) {
        this.zk = zk;
    }

    /**
     * Every route and step of the service real, on the local back-ends under {@link #dir} (OCFL, H2, mail
     * outbox) and the fixture's ZooKeeper; the test adds its own settings.
     */
    public Map<String, String> realSteps() {
        Map<String, String> config = ServiceTestSupport.localBackEnds(zk.connectString(), dir());
        config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        return config;
    }

    /** The service's directory, the class's ({@link QueueFixture#classDir}): kept across its tests. */
    public Path dir() {
        return zk.classDir();
    }

    /** Starts the service with {@code config}. */
    public RunningApi start(Map<String, String> config) throws Exception {
        return start(config, Map.of());
    }

    /** Starts the service with {@code config} and {@code beans} bound over its own (steps replaced). */
    public RunningApi start(Map<String, String> config, Map<String, Object> beans) throws Exception {
        service = new IngestService(config, beans).start();
        api = service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class);
        return this;
    }

    public IngestService service() {
        return service;
    }

    public QueueStore store() {
        return service.store();
    }

    public HttpApi api() {
        return api;
    }

    public int port() {
        return api.port();
    }

    /** The API's address, {@code http://127.0.0.1:port}. */
    public String base() {
        return "http://127.0.0.1:" + port();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // a class whose start failed, or was skipped by an assumption, has nothing to close
        if (service != null) {
            service.close();
            service = null;
        }
    }
}
