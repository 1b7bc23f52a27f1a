package org.cdlib.mrt.ingestqueue.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running service over real HTTP, on a real ZooKeeper, for the API's tests: a subclass's
 * {@code @BeforeAll} calls {@link #startService} with its own settings (users, limits).
 */
public abstract class ApiServiceTest {
    @RegisterExtension
    protected static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
    @RegisterExtension
    protected static final RunningApi API = new RunningApi(ZK);
    protected static IngestService service;
    protected static QueueStore store;
    protected static String base;
    protected static final HttpClient CLIENT = HttpClient.newHttpClient();
    protected static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    protected static Path dir;

    protected static void startService(Map<String, String> settings) throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        config.putAll(settings);
        API.start(config, new ServiceTestSupport().beans());
        service = API.service();
        store = API.store();
        base = API.base();
    }
}
