package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cleanup and the reporting sweep run on one host at a time (ElectedRoutes: a route policy on
 * Curator's leader election), and another host takes them over when that one stops or loses the
 * lead.
 */
class SingletonTimersTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();
    Host a;
    Host b;

    /** One service with its cleanup and sweep runs counted. */
    final class Host implements AutoCloseable {
        final AtomicInteger cleanups = new AtomicInteger();
        final AtomicInteger sweeps = new AtomicInteger();
        final IngestService service;

        Host(String name) throws Exception {
            this(name, null);
        }

        /** {@code cleanup}: the cleanup route's work instead of counting its runs (null: counting). */
        Host(String name, Processor cleanup) throws Exception {
            Map<String, String> config =
                    new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir.resolve(name)));
            config.put("ingest.cleanup.period", "100");
            config.put("ingest.cleanup.delay", "0");
            config.put("ingest.reporting.sweep-period", "100");
            config.put("ingest.reporting.sweep-delay", "0");
            config.put("ingest.inventory.local.url", "jdbc:h2:mem:" + name + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
            Map<String, Object> beans = new ServiceTestSupport().beans();
            beans.put("cleanupStep", cleanup != null ? cleanup : (Processor) e -> cleanups.incrementAndGet());
            beans.put("reportingSweep", (Processor) e -> sweeps.incrementAndGet());
            service = new IngestService(config, beans).start();
        }

        @Override
        public void close() {
            service.close();
        }
    }

    /** Both hosts started, the timers running on one of them; returns the one that leads cleanup. */
    Host twoHostsRunning() throws Exception {
        a = new Host("a");
        b = new Host("b");
        await().atMost(Duration.ofSeconds(30)).until(() -> a.cleanups.get() + b.cleanups.get() >= 3
                && a.sweeps.get() + b.sweeps.get() >= 3);
        return a.cleanups.get() > 0 ? a : b;
    }

    /** The routes the hosts list (as /api/hosts gives it), read through {@code via}, says {@code id} runs. */
    static List<?> leads(Host via, String id) {
        return via.service.store().hosts().list().stream().filter(h -> id.equals(h.get("id")))
                .map(h -> (List<?>) h.get("leads")).findFirst().orElse(List.of());
    }

    Host other(Host h) {
        return h == a ? b : a;
    }

    @AfterEach
    void stop() {
        for (Host h : new Host[] {a, b}) {
            if (h != null) {
                h.close();
            }
        }
    }

    @Test
    void theTimersRunOnOneHostAndMoveWhenItStops() throws Exception {
        Host leader = twoHostsRunning();
        Host other = other(leader);
        int before = leader.cleanups.get();
        await().atMost(Duration.ofSeconds(5)).until(() -> leader.cleanups.get() >= before + 5);
        assertEquals(0, other.cleanups.get(), "cleanup ran on one host only");
        assertEquals(0, other.sweeps.get(), "the sweep ran on one host only");
        // the hosts page tells which host runs them
        String leaderId = leader.service.store().hosts().id();
        await().atMost(Duration.ofSeconds(10)).until(() -> leads(other, leaderId).contains("cleanup"));
        assertEquals(List.of(), leads(other, other.service.store().hosts().id()), "the other host runs neither");

        leader.close();
        // the other host takes both over (the wait fails the test if it does not)
        await().atMost(Duration.ofSeconds(30)).until(() -> other.cleanups.get() >= 3 && other.sweeps.get() >= 3);
    }

    /**
     * A host that loses the lead (its session expired) stops its timers for good: the new leader
     * alone runs them. (With camel-master's master: on camel-zookeeper's cluster service, used
     * before, the old leader kept running them.)
     */
    @Test
    void aHostThatLosesTheLeadStopsItsTimers() throws Exception {
        Host leader = twoHostsRunning();
        Host other = other(leader);
        leader.service.store().client().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        await().atMost(Duration.ofSeconds(30)).until(() -> other.cleanups.get() >= 3);
        // the old leader is a follower now: over several of the timers' periods it runs neither
        int cleanups = leader.cleanups.get();
        int sweeps = leader.sweeps.get();
        int taken = other.cleanups.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> other.cleanups.get() >= taken + 30);
        assertEquals(cleanups, leader.cleanups.get(), "cleanup ran on the host that lost the lead");
        assertEquals(sweeps, leader.sweeps.get(), "the sweep ran on the host that lost the lead");
    }

    /**
     * A singleton's work in slices stops at its next slice once its host loses the lead, within a
     * second, not when the route's stop gives up on it (30 s) while the new leader already runs it.
     */
    @Test
    void aSingletonStopsItsSliceLoopWithinASecondOfLosingTheLead() throws Exception {
        AtomicLong ended = new AtomicLong();
        CountDownLatch working = new CountDownLatch(1);
        a = new Host("a", e -> {
            working.countDown();
            while (ElectedRoutes.leads(e) && ended.get() == 0) {
                LockSupport.parkNanos(20_000_000); // one slice of work
            }
            ended.compareAndSet(0, System.nanoTime());
        });
        assertTrue(working.await(30, TimeUnit.SECONDS), "the only host leads and works");
        long lost = System.nanoTime();
        a.service.store().client().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        await().atMost(Duration.ofSeconds(40)).until(() -> ended.get() != 0);
        long tookMs = (ended.get() - lost) / 1_000_000;
        assertTrue(tookMs < 1_000, "the slice loop went on " + tookMs + " ms after the lead was lost");
    }

    /** ZooKeeper restarts under both hosts: the timers stop while the lead is unknown, then run again on one host. */
    @Test
    void afterAConnectionLossTheTimersRunOnOneHost() throws Exception {
        twoHostsRunning();
        ZK.server().restart();
        int before = a.cleanups.get() + b.cleanups.get();
        await().atMost(Duration.ofSeconds(60)).until(() -> a.cleanups.get() + b.cleanups.get() >= before + 10);
        int[] at = {a.cleanups.get(), b.cleanups.get(), a.sweeps.get(), b.sweeps.get()};
        await().atMost(Duration.ofSeconds(30)).until(() -> a.cleanups.get() + b.cleanups.get() >= at[0] + at[1] + 30
                && a.sweeps.get() + b.sweeps.get() >= at[2] + at[3] + 30);
        assertTrue(
                a.cleanups.get() == at[0] || b.cleanups.get() == at[1],
                "cleanup ran on both hosts: " + (a.cleanups.get() - at[0]) + " and " + (b.cleanups.get() - at[1])
                        + " runs");
        assertTrue(
                a.sweeps.get() == at[2] || b.sweeps.get() == at[3],
                "the sweep ran on both hosts: " + (a.sweeps.get() - at[2]) + " and " + (b.sweeps.get() - at[3])
                        + " runs");
    }
}
