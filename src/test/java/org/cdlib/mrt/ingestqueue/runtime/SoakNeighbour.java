package org.cdlib.mrt.ingestqueue.runtime;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZk;

/**
 * Merritt's tools beside the queue, on their own ZooKeeper session, writing only what they write
 * ({@code MrtZk}: single calls, no multi, the 0-byte lock): the Admin Tool holds a pending job
 * under mrt-zk's lock and later releases it, half the time under the lock and half without it
 * (as its {@code set_status} does; nobody else touches a job it held); an mrt-zk daemon takes an
 * unlocked job of ours in pending (or, when one waits unlocked, in downloading) with its lock,
 * reads it, and lets it go after up to 1.5 s. Each action leaves the queue consistent, so any finding about
 * these jobs is false. Every mrt-zk call that fails because another writer moved a job under mrt-zk's lock,
 * and an mrt-zk lock found gone or replaced at its unlock, is a failure: a healthy lock broken.
 */
final class SoakNeighbour implements AutoCloseable {
    private final QueueStore store;
    private final Set<String> taken;
    private final SoakLog log;
    private final CuratorFramework client;
    private final MrtZk wire;
    private final SplittableRandom random;
    /** Jobs this neighbour held, and when (ms) it releases each. */
    private final Map<String, Long> held = new ConcurrentHashMap<>();
    final AtomicInteger holds = new AtomicInteger();
    final AtomicInteger releasesLocked = new AtomicInteger();
    final AtomicInteger releasesUnlocked = new AtomicInteger();
    final AtomicInteger takes = new AtomicInteger();
    final AtomicInteger busy = new AtomicInteger();
    private final Thread thread;
    private volatile boolean running = true;

    /** @param taken jobs an operator or this neighbour holds: each is released only by who held it */
    SoakNeighbour(String connect, QueueStore store, Set<String> taken, SoakLog log, long seed)
            throws InterruptedException {
        this.store = store;
        this.taken = taken;
        this.log = log;
        this.random = new SplittableRandom(seed);
        client = CuratorFrameworkFactory.newClient(connect, 30_000, 15_000, new ExponentialBackoffRetry(200, 10, 2000));
        client.start();
        client.blockUntilConnected(30, TimeUnit.SECONDS);
        wire = new MrtZk(zk());
        thread = new Thread(this::loop, "soak-neighbour");
        thread.setDaemon(true);
        thread.start();
    }

    private ZooKeeper zk() {
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(100 + random.nextInt(400)); // the neighbour's pace
                releaseDue(false);
                int pick = random.nextInt(10);
                if (pick < 5) {
                    hold();
                } else {
                    take(pick < 8 ? JobState.PENDING : JobState.DOWNLOADING);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (running) {
                    log.fail("neighbour", "mrt-zk call failed: " + e);
                }
            }
        }
    }

    /** The Admin Tool's hold of a pending job, under mrt-zk's lock: the first of a few pending jobs it can lock. */
    private void hold() throws Exception {
        for (String jid : some(JobState.PENDING)) {
            if (!taken.add(jid)) {
                continue;
            }
            if (!wire.lock("/jobs/" + jid)) {
                taken.remove(jid);
                busy.incrementAndGet();
                continue;
            }
            long session = zk().getSessionId();
            boolean heldNow = false;
            try {
                if ("Pending".equals(wire.loadJob(jid).status())) {
                    wire.setJobStatus(jid, "Held", "held by the Admin Tool (soak)", false);
                    heldNow = true;
                }
            } finally {
                unlockOwn(jid, session);
                if (heldNow) {
                    held.put(jid, System.currentTimeMillis() + 2000 + random.nextInt(6000));
                    holds.incrementAndGet();
                } else {
                    taken.remove(jid);
                }
            }
            return;
        }
    }

    /**
     * Releases the held jobs whose time came (all of them when {@code all}): Held -> Pending, with or without the lock.
     */
    private void releaseDue(boolean all) throws Exception {
        long now = System.currentTimeMillis();
        for (Map.Entry<String, Long> e : new ArrayList<>(held.entrySet())) {
            if (!all && e.getValue() > now) {
                continue;
            }
            String jid = e.getKey();
            if (random.nextBoolean()) {
                if (!wire.lock("/jobs/" + jid)) {
                    log.fail("neighbour", "job " + jid + ", held by the Admin Tool, is locked by someone else: "
                            + lockOwner(jid));
                    continue;
                }
                long session = zk().getSessionId();
                try {
                    release(jid);
                } finally {
                    unlockOwn(jid, session);
                }
                releasesLocked.incrementAndGet();
            } else {
                release(jid); // the Admin Tool's set_status takes no lock
                releasesUnlocked.incrementAndGet();
            }
            held.remove(jid);
            taken.remove(jid);
        }
    }

    private void release(String jid) throws Exception {
        String s = wire.loadJob(jid).status();
        if (!"Held".equals(s)) {
            log.fail(
                    "neighbour",
                    "job " + jid + ", held by the Admin Tool, is " + s + " at its release: another writer moved it");
            return;
        }
        wire.setJobStatus(jid, "Pending", "released by the Admin Tool (soak)", false);
    }

    /** An mrt-zk daemon's acquireJob of the first unlocked job of a few in the state, read and let go. */
    private void take(JobState state) throws Exception {
        for (String jid : some(state)) {
            if (taken.contains(jid)) {
                continue;
            }
            if (!wire.lock("/jobs/" + jid)) {
                busy.incrementAndGet();
                continue;
            }
            long session = zk().getSessionId();
            try {
                wire.loadJob(jid).status();
                takes.incrementAndGet();
                Thread.sleep(random.nextInt(1500)); // holding it, as a daemon deciding would
            } finally {
                unlockOwn(jid, session);
            }
            return;
        }
    }

    /** mrt-zk's unlock, after checking the lock is still the one this session made: anything else is a broken lock. */
    private void unlockOwn(String jid, long session) throws Exception {
        Stat st = zk().exists(QueuePaths.jobLock(jid), false);
        if (st == null || st.getEphemeralOwner() != session || st.getDataLength() != 0) {
            log.fail(
                    "neighbour",
                    "mrt-zk's lock on job " + jid + " was " + (st == null ? "gone" : "replaced by " + lockOwner(jid))
                            + " before its unlock: a healthy lock broken");
            if (st == null || st.getEphemeralOwner() != session) {
                return; // mrt-zk would delete the other's lock here; the failure is recorded, the soak goes on
            }
        }
        wire.unlock("/jobs/" + jid);
    }

    private String lockOwner(String jid) {
        try {
            Stat st = new Stat();
            byte[] b = zk().getData(QueuePaths.jobLock(jid), false, st);
            return "session 0x" + Long.toHexString(st.getEphemeralOwner()) + " '"
                    + new String(b, StandardCharsets.UTF_8) + "'";
        } catch (Exception e) {
            return "nobody (" + e.getClass().getSimpleName() + ")";
        }
    }

    /** Up to 8 of the state's jobs, in random order. */
    private List<String> some(JobState state) {
        List<String> refs = new ArrayList<>(store.jobs().refs(state));
        Collections.shuffle(refs, new Random(random.nextLong()));
        return refs.stream().limit(8).map(QueuePaths::jidOfRef).toList();
    }

    String counts() {
        return String.format(
                "neighbour: %d holds, %d releases under mrt-zk's lock, %d without it, %d jobs taken and let go,"
                        + " %d found locked",
                holds.get(), releasesLocked.get(), releasesUnlocked.get(), takes.get(), busy.get());
    }

    /** Stops, releasing every job it holds. */
    @Override
    public void close() throws Exception {
        running = false;
        thread.interrupt();
        thread.join(10_000);
        for (int round = 0; round < 10 && !held.isEmpty(); round++) {
            try {
                releaseDue(true);
            } catch (Exception e) {
                log.fail("neighbour", "release at the end: " + e);
            }
        }
        client.close();
    }
}
