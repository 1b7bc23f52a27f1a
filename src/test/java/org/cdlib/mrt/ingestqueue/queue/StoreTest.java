package org.cdlib.mrt.ingestqueue.queue;

import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A test on a real queue store: an in-process ZooKeeper for the class, wiped before each test. */
public abstract class StoreTest {
    protected static TestingServer zk;
    protected CuratorFramework client;
    protected QueueStore store;
    @TempDir
    protected Path home;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @BeforeEach
    void openStore() throws Exception {
        client = QueueTestSupport.client(zk);
        QueueTestSupport.wipe(client);
        store = QueueTestSupport.store(client, home);
    }

    @AfterEach
    void closeClient() {
        client.close();
    }
}
