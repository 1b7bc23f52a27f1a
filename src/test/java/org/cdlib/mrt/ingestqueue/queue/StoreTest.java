package org.cdlib.mrt.ingestqueue.queue;

import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A test on a real queue store: the queue fixture's ZooKeeper, wiped before each test, and a client of the test's own. */
public abstract class StoreTest {
    @RegisterExtension
    protected static final QueueFixture FIXTURE = new QueueFixture();
    protected CuratorFramework client;
    protected QueueStore store;
    protected final Path home = FIXTURE.dir();

    @BeforeEach
    void openStore() throws Exception {
        client = QueueTestSupport.client(FIXTURE.server());
        store = QueueTestSupport.store(client, home);
    }

    @AfterEach
    void closeClient() {
        client.close();
    }
}
