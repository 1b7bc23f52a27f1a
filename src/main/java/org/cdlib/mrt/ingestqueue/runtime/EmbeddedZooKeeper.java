package org.cdlib.mrt.ingestqueue.runtime;

import java.io.File;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.PurgeTxnLog;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single ZooKeeper server inside the process, for a service started without
 * {@code zookeeper.connect}. Its data directory survives restarts, so the queue does too.
 *
 * <p>ZooKeeper keeps every snapshot and transaction log it writes unless told otherwise, and a
 * busy queue snapshots every ~100,000 transactions: a million-object batch filled 72 GB in 24
 * minutes. So the newest {@link #RETAINED} snapshots (and the logs they need) are kept and the
 * rest purged every {@code purgeEvery} ({@link PurgeTxnLog}, what ZooKeeper's own autopurge runs,
 * which counts in hours only).
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    private final ZooKeeperServerEmbedded server;
    private final int port;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, int port) {
        this.server = server;
        this.port = port;
    }

    /** Snapshots kept by the purge (ZooKeeper's own minimum is 3). */
    static final int RETAINED = 3;

    /**
     * Transactions between snapshots (ZooKeeper's default 100,000, about 3,500 jobs). A snapshot
     * writes the whole tree, finished jobs kept for their retention included, so its cost per job
     * grows with what the queue keeps: 7% of the real path's CPU with 20,000 finished jobs kept.
     * Five times fewer snapshots cost a restart up to 500,000 transactions of log to replay (2.9 s
     * measured) and the logs the retained snapshots need on disk (a move's multi is 1-2 KB).
     * {@code -Dzookeeper.snapCount} overrides it.
     */
    static final int SNAP_COUNT = 500_000;

    /** The connections the server takes in all: ZooKeeper's per-address default, its clients being local. */
    static final int MAX_CONNECTIONS = 60;

    /** Starts a server on {@code port} (0: any free port) with its data in {@code dataDir}. */
    public static EmbeddedZooKeeper start(Path dataDir, int port) throws Exception {
        return start(dataDir, port, Duration.ofMinutes(5));
    }

    static EmbeddedZooKeeper start(Path dataDir, int port, Duration purgeEvery) throws Exception {
        Files.createDirectories(dataDir);
        FileChannel lock = lockDataDirectory(dataDir);
        int p = port > 0 ? port : freePort();
        if (port > 0) {
            requireFreePort("127.0.0.1", port, "the embedded ZooKeeper's port", "zookeeper.embedded.port");
        }
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(p));
        config.setProperty("clientPortAddress", "127.0.0.1");
        config.setProperty("tickTime", "2000");
        config.setProperty("maxSessionTimeout", "120000");
        config.setProperty("admin.enableServer", "false");
        config.setProperty("4lw.commands.whitelist", "ruok,mntr,stat");
        if (System.getProperty("zookeeper.maxCnxns") == null) { // ZooKeeper makes it zookeeper.maxCnxns too
            // its clients are all on 127.0.0.1, so the per-address limit (maxClientCnxns, 60) bounds them already;
            // the same figure as the total spares every start ZooKeeper's "maxCnxns is not configured" WARN
            config.setProperty("maxCnxns", Integer.toString(MAX_CONNECTIONS));
        }
        if (System.getProperty("zookeeper.snapCount") == null) { // an operator's -Dzookeeper.snapCount stands
            config.setProperty("snapCount", Integer.toString(SNAP_COUNT)); // ZooKeeper makes it zookeeper.snapCount
        }
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                .baseDir(dataDir.toAbsolutePath())
                .configuration(config)
                .exitHandler(ExitHandler.LOG_ONLY)
                .build();
        try {
            server.start(30_000);
        } catch (Exception e) {
            server.close();
            lock.close();
            throw new IOException(
                    "cannot start the embedded ZooKeeper on 127.0.0.1:" + p + " with data in " + dataDir
                            + " (is another instance using that port or directory? set zookeeper.embedded.port): "
                            + e.getMessage(),
                    e);
        }
        LOG.info("embedded ZooKeeper listening on 127.0.0.1:{}, data in {}", p, dataDir.toAbsolutePath());
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper(server, p);
        zk.lock = lock;
        zk.purge = purgeEvery(dataDir.toAbsolutePath().resolve("data").toFile(), purgeEvery);
        return zk;
    }

    private FileChannel lock;
    private ScheduledExecutorService purge;

    private static ScheduledExecutorService purgeEvery(File data, Duration every) {
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "embedded-zookeeper-purge");
            t.setDaemon(true);
            return t;
        });
        s.scheduleWithFixedDelay(() -> {
            try {
                PurgeTxnLog.purge(data, data, RETAINED);
            } catch (Exception e) {
                LOG.warn("cannot purge the embedded ZooKeeper's old snapshots in {}: {}", data, e.toString());
            }
        }, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return s;
    }

    /** One process per data directory: a second start fails at once naming the directory, not after a wait. */
    private static FileChannel lockDataDirectory(Path dataDir) throws IOException {
        Path file = dataDir.resolve(".ingest-queue.lock");
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock held;
        try {
            held = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            held = null;
        }
        if (held == null) {
            ch.close();
            throw new IOException("the ZooKeeper data directory " + dataDir.toAbsolutePath() + " is in use by another "
                    + "ingest-queue: stop it, or give this one its own zookeeper.embedded.dir");
        }
        return ch;
    }

    /** Fails at once with the key to change when {@code port} is taken. */
    public static void requireFreePort(String host, int port, String what, String key) throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(host, port));
        } catch (BindException e) {
            throw new IOException(what + " " + host + ":" + port + " is in use (another ingest-queue or ZooKeeper?): "
                    + "stop it or set " + key);
        }
    }

    public String connectString() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        if (purge != null) {
            purge.shutdownNow();
        }
        server.close();
        if (lock != null) {
            try {
                lock.close();
            } catch (IOException e) {
                LOG.warn("cannot release the data directory lock: {}", e.toString());
            }
        }
        LOG.info("embedded ZooKeeper stopped");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
