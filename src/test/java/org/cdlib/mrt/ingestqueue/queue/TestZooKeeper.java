package org.cdlib.mrt.ingestqueue.queue;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper server for a test class ({@code @RegisterExtension static TestZooKeeper zk}),
 * with a connected client; the queue's nodes are wiped before each test.
 */
public final class TestZooKeeper implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private TestingServer server;
    private CuratorFramework client;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = new TestingServer(true);
        client = QueueTestSupport.client(server);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        QueueTestSupport.wipe(client);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        client.close();
        server.close();
    }

    public TestingServer server() {
        return server;
    }

    public CuratorFramework client() {
        return client;
    }

    /** A started queue store on this server with working directories under {@code home}. */
    public QueueStore store(java.nio.file.Path home) {
        return QueueTestSupport.store(client, home);
    }
}
