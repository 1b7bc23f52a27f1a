package org.cdlib.mrt.ingestqueue.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running service over real HTTP, on a real ZooKeeper, for the API's tests: a subclass's
 * {@code @BeforeAll} calls {@link #startService} with its own settings (users, limits).
 */
public abstract class ApiServiceTest {
    protected static TestingServer zk;
    protected static IngestService service;
    protected static QueueStore store;
    protected static String base;
    protected static final HttpClient CLIENT = HttpClient.newHttpClient();
    protected static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    protected static Path dir;

    protected static void startService(Map<String, String> settings) throws Exception {
        zk = new TestingServer(true);
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(zk.getConnectString(), dir));
        config.putAll(settings);
        service = new IngestService(config, new ServiceTestSupport().beans()).start();
        store = service.store();
        base = "http://127.0.0.1:" + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
    }

    @AfterAll
    static void stopService() throws Exception {
        service.close();
        zk.close();
    }
}
