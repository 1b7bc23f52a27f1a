package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.queue.TestZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cleanup and the reporting sweep run on one host at a time (master: with camel-zookeeper's
 * cluster service), and another host takes them over when that one stops.
 */
class SingletonTimersTest {
    @RegisterExtension
    static final TestZooKeeper ZK = new TestZooKeeper();
    @TempDir
    Path dir;

    IngestService start(String name, AtomicInteger cleanups, AtomicInteger sweeps) throws Exception {
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.server().getConnectString(), dir.resolve(name)));
        config.put("ingest.cleanup.period", "100");
        config.put("ingest.cleanup.delay", "0");
        config.put("ingest.reporting.sweep-period", "100");
        config.put("ingest.reporting.sweep-delay", "0");
        config.put("ingest.inventory.local.url", "jdbc:h2:mem:" + name + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        Map<String, Object> beans = new ServiceTestSupport().beans();
        beans.put("cleanupStep", (Processor) e -> cleanups.incrementAndGet());
        beans.put("reportingSweep", (Processor) e -> sweeps.incrementAndGet());
        return new IngestService(config, beans).start();
    }

    @Test
    void theTimersRunOnOneHostAndMoveWhenItStops() throws Exception {
        AtomicInteger cleanA = new AtomicInteger();
        AtomicInteger sweepA = new AtomicInteger();
        AtomicInteger cleanB = new AtomicInteger();
        AtomicInteger sweepB = new AtomicInteger();
        IngestService a = start("a", cleanA, sweepA);
        IngestService b = start("b", cleanB, sweepB);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> cleanA.get() + cleanB.get() >= 5 && sweepA.get() + sweepB.get() >= 5);
            boolean aLeads = cleanA.get() > 0;
            AtomicInteger leaderClean = aLeads ? cleanA : cleanB;
            AtomicInteger otherClean = aLeads ? cleanB : cleanA;
            AtomicInteger otherSweep = aLeads ? sweepB : sweepA;
            int before = leaderClean.get();
            await().atMost(Duration.ofSeconds(5)).until(() -> leaderClean.get() >= before + 5);
            assertEquals(0, otherClean.get(), "cleanup ran on one host only");
            assertEquals(0, otherSweep.get(), "the sweep ran on one host only");

            (aLeads ? a : b).close();
            await().atMost(Duration.ofSeconds(30)).until(() -> otherClean.get() >= 3 && otherSweep.get() >= 3);
            assertTrue(otherClean.get() >= 3, "the other host took cleanup over");
        } finally {
            a.close();
            b.close();
        }
    }
}
