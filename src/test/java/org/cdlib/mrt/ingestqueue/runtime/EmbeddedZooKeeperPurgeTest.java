package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded server keeps its newest snapshots and purges the rest, so a busy queue cannot fill the disk. */
class EmbeddedZooKeeperPurgeTest {
    @TempDir
    Path dir;

    @Test
    void oldSnapshotsAndLogsArePurgedWhileTheDataStays() throws Exception {
        String before = System.getProperty("zookeeper.snapCount");
        System.setProperty("zookeeper.snapCount", "100"); // a snapshot every ~50-100 transactions instead of 100,000
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0, Duration.ofMillis(300));
             CuratorFramework client = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100))) {
            restore(before);
            client.start();
            for (int i = 0; i < 1500; i++) {
                client.create().creatingParentsIfNeeded().forPath("/purge/n" + i, new byte[100]);
            }
            Path data = dir.resolve("zk").resolve("data").resolve("version-2");
            await().atMost(Duration.ofSeconds(60)).until(() -> count(data, "snapshot.") <= EmbeddedZooKeeper.RETAINED);
            assertTrue(
                    count(data, "log.") <= EmbeddedZooKeeper.RETAINED + 1,
                    "logs older than the oldest kept snapshot go too");
            assertEquals(1500, client.getChildren().forPath("/purge").size(), "nothing of the data is lost");
        } finally {
            restore(before);
        }
        try (EmbeddedZooKeeper again = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
                CuratorFramework client =
                        CuratorFrameworkFactory.newClient(again.connectString(), new RetryOneTime(100))) {
            client.start();
            assertEquals(
                    1500, client.getChildren().forPath("/purge").size(), "a restart reads the kept snapshot and logs");
        }
    }

    @Test
    void snapshotsAreFiveTimesRarerThanZooKeepersDefaultUnlessTheOperatorSaysOtherwise() throws Exception {
        String before = System.getProperty("zookeeper.snapCount");
        try {
            System.clearProperty("zookeeper.snapCount");
            try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("a"), 0)) {
                assertEquals("500000", System.getProperty("zookeeper.snapCount"), "the server's snapshot interval");
            }
            System.setProperty("zookeeper.snapCount", "777");
            try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("b"), 0)) {
                assertEquals(
                        "777", System.getProperty("zookeeper.snapCount"), "an operator's -Dzookeeper.snapCount stands");
            }
        } finally {
            restore(before);
        }
    }

    private static void restore(String snapCount) {
        if (snapCount == null) {
            System.clearProperty("zookeeper.snapCount");
        } else {
            System.setProperty("zookeeper.snapCount", snapCount);
        }
    }

    private static long count(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)).count();
        }
    }
}
