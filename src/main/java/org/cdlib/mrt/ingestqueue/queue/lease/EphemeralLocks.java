package org.cdlib.mrt.ingestqueue.queue.lease;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.LockOwner;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.zk.MultiCommit;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ephemeral lock nodes of jobs and batches. A lock create whose answer a lost connection
 * hid is resolved by reading the node back (ours: we hold it; someone else's: we do not); a
 * release that cannot reach ZooKeeper is retried in the background until it succeeds or the
 * session that owns the lock is gone, as Curator's guaranteed delete does, so a lock never
 * outlives its work while its session lives on.
 */
public final class EphemeralLocks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EphemeralLocks.class);
    private final ZooKeeperCalls zk;
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "zkqueue-lock-release");
        t.setDaemon(true);
        return t;
    });

    private final HeldLocks held = new HeldLocks();
    private final LockBreaks breaks;

    private final Supplier<String> hostId;

    /** {@code hostId}: this host's id, written in every lock this process takes ({@link LockOwner}). */
    public EphemeralLocks(ZooKeeperCalls zk, Supplier<String> hostId) {
        this.zk = zk;
        this.hostId = hostId;
        this.breaks = new LockBreaks(zk, held);
    }

    /** The data of a lock {@code worker} of this host takes. */
    public LockOwner owner(String worker) {
        return LockOwner.of(hostId.get(), worker);
    }

    /** The ledger of the job locks this process holds on purpose. */
    public HeldLocks held() {
        return held;
    }

    /** The one path by which a lock that is not its holder's own is removed. */
    public LockBreaks breaks() {
        return breaks;
    }

    /** Creates the lock node if nobody holds it; the handle it was created through, or empty. */
    public Optional<ZooKeeper> take(String path, LockOwner owner) {
        byte[] data = QueueJson.write(owner);
        held.hold(path, data); // entered before the create is sent: fsck never sees it unentered
        try {
            Optional<ZooKeeper> taken = create(path, owner, data);
            if (taken.isEmpty()) {
                held.letGo(path, data);
            }
            return taken;
        } catch (RuntimeException e) {
            held.letGo(path, data); // a create that may have applied was released by the create itself
            throw e;
        }
    }

    private Optional<ZooKeeper> create(String path, LockOwner owner, byte[] data) {
        long deadline = System.currentTimeMillis() + MultiCommit.CONNECT_WAIT_MS;
        while (true) {
            ZooKeeper handle = zk.currentHandle();
            try {
                handle.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                return Optional.of(handle);
            } catch (KeeperException.NodeExistsException e) {
                Stat st = zk.statOrNull(handle, path);
                if (st != null && st.getEphemeralOwner() == handle.getSessionId()
                        && Arrays.equals(data, zk.readOrNull(path))) {
                    return Optional.of(handle); // our own create, applied before a connection loss
                }
                return Optional.empty();
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty(); // the job or batch is gone
            } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException e) {
                if (System.currentTimeMillis() > deadline) {
                    // whether the create applied is unknown: make sure no lock of ours stays behind
                    release(handle, handle.getSessionId(), path, data);
                    throw new QueueException("cannot lock " + path + ": ZooKeeper connection keeps dropping");
                }
                pause(200);
            } catch (KeeperException e) {
                throw new QueueException("cannot lock " + path + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueueException("interrupted while locking " + path, e);
            }
        }
    }

    /** A lock taken, and what was read right behind it (null when that read must be made again). */
    public record Taken(ZooKeeper handle, Map<String, OpResult> read) {
    }

    /** A lock's create and the read behind it, sent and not yet answered. */
    public record Pending(String path, LockOwner owner, List<String> paths, ZooKeeper handle,
                          CompletableFuture<Integer> created, CompletableFuture<List<OpResult>> read) {
    }

    /**
     * Sends a lock's create and, right behind it, the read of {@code paths}, without waiting: many
     * claims can be in flight at once. ZooKeeper serves one session's requests in order, so the read
     * sees what the lock found (the previous holder's transition, which deleted its lock, included).
     * With no paths, only the create is sent, and the taken lock comes with no read.
     */
    public Pending send(String path, LockOwner owner, List<String> paths) {
        ZooKeeper handle = zk.currentHandle();
        CompletableFuture<Integer> created = new CompletableFuture<>();
        CompletableFuture<List<OpResult>> read = new CompletableFuture<>();
        held.hold(path, QueueJson.write(owner)); // entered before the create is sent
        handle.create(path, QueueJson.write(owner), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL,
                (rc, p, ctx, name) -> created.complete(rc), null);
        if (paths.isEmpty()) {
            read.complete(null); // no read behind it: the caller reads with sizes looked at first
        } else {
            // a read multi answers each op on its own (a missing node is an error result), whatever rc says
            handle.multi(paths.stream().map(Op::getData).toList(), (rc, p, ctx, results) -> read.complete(results),
                    null);
        }
        zk.counted(1 + paths.size());
        return new Pending(path, owner, paths, handle, created, read);
    }

    /**
     * The outcome of a {@link #send}: the lock and what was read behind it; empty when someone else
     * holds the lock or the node is gone. A lost connection leaves the create's outcome unknown:
     * then the ordinary {@link #take} resolves it, and the read is left to the caller (null).
     */
    public Optional<Taken> await(Pending p) {
        int rc;
        try {
            rc = p.created.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // it may have been created: no lock of ours stays behind
            release(p.handle, p.handle.getSessionId(), p.path, QueueJson.write(p.owner));
            throw new QueueException("interrupted while locking " + p.path, e);
        } catch (ExecutionException e) {
            throw new QueueException("cannot lock " + p.path + ": " + e.getCause(), e.getCause());
        }
        if (rc == KeeperException.Code.NODEEXISTS.intValue() || rc == KeeperException.Code.NONODE.intValue()) {
            held.letGo(p.path, QueueJson.write(p.owner));
            return Optional.empty();
        }
        if (rc != KeeperException.Code.OK.intValue()) {
            return take(p.path, p.owner).map(h -> new Taken(h, null)); // take enters it again, or lets go of it
        }
        List<OpResult> results = p.read.join(); // answered right after the create
        if (results == null || p.paths.isEmpty() || results.size() != p.paths.size()) {
            return Optional.of(new Taken(p.handle, null));
        }
        Map<String, OpResult> byPath = new LinkedHashMap<>();
        for (int i = 0; i < p.paths.size(); i++) {
            byPath.put(p.paths.get(i), results.get(i));
        }
        return Optional.of(new Taken(p.handle, byPath));
    }

    /** Deletes the lease's lock node if it is still its own; retried in the background while the session lives. */
    public void release(BatchLock lease) {
        release(lease.zk, lease.sessionId, lease.path, lease.ownerBytes);
    }

    /** As {@link #release(BatchLock)}, for a job's lease. */
    public void release(HeldJob job) {
        JobLock lease = job.lease();
        if (release(lease.zk, lease.sessionId, lease.path, lease.ownerBytes) == Released.NOT_OURS) {
            // someone else removed it (Merritt's Admin Tool "Fail" deletes the lock of a job a worker
            // holds; an operator's break): the object lock the lease took is let go too, once the job
            // no longer writes the object
            ObjectLocks.letGoAbandoned(zk, job);
        }
    }

    /** The lease's lock was removed by a transaction of its holder (a move, a deletion): out of the ledger. */
    public void removed(Lease lease) {
        held.letGo(lease.path, lease.ownerBytes);
    }

    private Released release(ZooKeeper handle, long sessionId, String path, byte[] owner) {
        Released r = tryRelease(handle, sessionId, path, owner);
        if (r != Released.AGAIN) {
            held.letGo(path, owner);
        } else {
            LOG.warn("lock {} not released yet (ZooKeeper unreachable): retrying until it is or the session ends",
                    path);
            retries.schedule(() -> retry(handle, sessionId, path, owner, 1), 500, TimeUnit.MILLISECONDS);
        }
        return r;
    }

    private void retry(ZooKeeper handle, long sessionId, String path, byte[] owner, int attempt) {
        if (tryRelease(handle, sessionId, path, owner) != Released.AGAIN) {
            held.letGo(path, owner);
            LOG.info("lock {} released after {} retries", path, attempt);
        } else {
            retries.schedule(() -> retry(handle, sessionId, path, owner, attempt + 1), Math.min(5000, 500L * attempt),
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * How a release ended: deleted (or gone with its session), found removed or someone else's, or
     * to be tried again.
     */
    private enum Released { DONE, NOT_OURS, AGAIN }

    /**
     * DONE when our lock is deleted or went with its session; NOT_OURS when it is gone or someone
     * else's (a break, an outside writer's unlock, and maybe a new claim: left alone); AGAIN when it
     * must be tried again. The node is deleted only when both its session and its owner bytes are
     * ours, at the version read with them.
     */
    private Released tryRelease(ZooKeeper handle, long sessionId, String path, byte[] owner) {
        if (handle.getSessionId() != sessionId || !handle.getState().isAlive()) {
            return Released.DONE; // the session is over, and its ephemeral lock with it
        }
        try {
            for (int attempt = 0; attempt < 3; attempt++) {
                Stat st = new Stat();
                byte[] data = handle.getData(path, false, st);
                if (st.getEphemeralOwner() != sessionId || !Arrays.equals(owner, data)) {
                    return Released.NOT_OURS; // not ours (any more): a lock break, and maybe a new claim
                }
                try {
                    handle.delete(path, st.getVersion());
                    return Released.DONE;
                } catch (KeeperException.BadVersionException e) {
                    // handed on in this process meanwhile (a kept lock is rewritten): read it again
                }
            }
            return Released.AGAIN;
        } catch (KeeperException.NoNodeException e) {
            return Released.NOT_OURS;
        } catch (KeeperException.SessionExpiredException e) {
            return Released.DONE;
        } catch (KeeperException e) {
            return Released.AGAIN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Released.AGAIN;
        }
    }

    /**
     * Watches a node that may not exist yet (a hold, a drain) until it is created, changed or
     * deleted; whether it exists.
     */
    public boolean watch(String path, CuratorWatcher onChange) {
        try {
            zk.counted(1);
            return zk.client().checkExists().usingWatcher(onChange).forPath(path) != null;
        } catch (Exception e) {
            throw ZooKeeperCalls.wrap("watch " + path, e);
        }
    }

    /**
     * Watches a lock until it changes or goes; false when it is already gone (then nothing is left
     * watching). A {@code getData} watch, as Curator's {@code LockInternals} sets: it is set only on
     * a node that exists and fires when that node goes, where an {@code exists} watch on an absent
     * node would stay on the server until something creates that path, which may be never.
     */
    public boolean watchLock(String path, CuratorWatcher onChange) {
        try {
            zk.counted(1);
            zk.client().getData().usingWatcher(onChange).forPath(path);
            return true;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            throw ZooKeeperCalls.wrap("watch " + path, e);
        }
    }

    @Override
    public void close() {
        retries.shutdownNow();
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
