package org.cdlib.mrt.ingestqueue.testing;

import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A test on a real queue store: the queue fixture's ZooKeeper, wiped before each test, and a client of its own. */
public abstract class StoreTest {
    @RegisterExtension
    protected static final QueueFixture ZK = new QueueFixture();
    protected CuratorFramework client;
    protected QueueStore store;
    protected final Path home = ZK.dir();

    @BeforeEach
    void openStore() throws Exception {
        client = QueueTestSupport.client(ZK.server());
        store = QueueTestSupport.store(client, home);
    }

    @AfterEach
    void closeClient() {
        client.close();
    }
}
