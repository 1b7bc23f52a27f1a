package org.cdlib.mrt.ingestqueue.runtime;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single ZooKeeper server inside the process, for a service started without
 * {@code zookeeper.connect}. Its data directory survives restarts, so the queue does too.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    private final ZooKeeperServerEmbedded server;
    private final int port;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, int port) {
        this.server = server;
        this.port = port;
    }

    /** Starts a server on {@code port} (0: any free port) with its data in {@code dataDir}. */
    public static EmbeddedZooKeeper start(Path dataDir, int port) throws Exception {
        Files.createDirectories(dataDir);
        int p = port > 0 ? port : freePort();
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(p));
        config.setProperty("clientPortAddress", "127.0.0.1");
        config.setProperty("tickTime", "2000");
        config.setProperty("maxSessionTimeout", "120000");
        config.setProperty("admin.enableServer", "false");
        config.setProperty("4lw.commands.whitelist", "ruok,mntr,stat");
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                .baseDir(dataDir.toAbsolutePath())
                .configuration(config)
                .exitHandler(org.apache.zookeeper.server.embedded.ExitHandler.LOG_ONLY)
                .build();
        try {
            server.start(30_000);
        } catch (Exception e) {
            server.close();
            throw new IOException("cannot start the embedded ZooKeeper on 127.0.0.1:" + p + " with data in " + dataDir
                    + " (is another instance using that port or directory? set zookeeper.embedded.port): " + e.getMessage(), e);
        }
        LOG.info("embedded ZooKeeper listening on 127.0.0.1:{}, data in {}", p, dataDir.toAbsolutePath());
        return new EmbeddedZooKeeper(server, p);
    }

    public String connectString() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.close();
        LOG.info("embedded ZooKeeper stopped");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
