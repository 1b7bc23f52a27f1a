package org.cdlib.mrt.ingestqueue.queue;

import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ephemeral lock nodes of jobs and batches. A lock create whose answer a lost connection
 * hid is resolved by reading the node back (ours: we hold it; someone else's: we do not); a
 * release that cannot reach ZooKeeper is retried in the background until it succeeds or the
 * session that owns the lock is gone, as Curator's guaranteed delete does, so a lock never
 * outlives its work while its session lives on.
 */
final class EphemeralLocks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EphemeralLocks.class);
    private final ZooKeeperCalls zk;
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "zkqueue-lock-release");
        t.setDaemon(true);
        return t;
    });

    EphemeralLocks(ZooKeeperCalls zk) {
        this.zk = zk;
    }

    /** Creates the lock node if nobody holds it; the handle it was created through, or empty. */
    Optional<ZooKeeper> take(String path, LockOwner owner) {
        byte[] data = QueueJson.write(owner);
        long deadline = System.currentTimeMillis() + ZooKeeperCalls.CONNECT_WAIT_MS;
        while (true) {
            ZooKeeper handle = zk.currentHandle();
            try {
                handle.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                return Optional.of(handle);
            } catch (KeeperException.NodeExistsException e) {
                Stat st = zk.statOrNull(handle, path);
                if (st != null && st.getEphemeralOwner() == handle.getSessionId() && Arrays.equals(data, zk.readOrNull(path))) {
                    return Optional.of(handle); // our own create, applied before a connection loss
                }
                return Optional.empty();
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty(); // the job or batch is gone
            } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException e) {
                if (System.currentTimeMillis() > deadline) {
                    // whether the create applied is unknown: make sure no lock of ours stays behind
                    release(handle, handle.getSessionId(), path);
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

    /** Deletes the lock if this session owns it; retried in the background while the session lives. */
    void release(ZooKeeper handle, long sessionId, String path) {
        if (!tryRelease(handle, sessionId, path)) {
            LOG.warn("lock {} not released yet (ZooKeeper unreachable): retrying until it is or the session ends", path);
            retries.schedule(() -> retry(handle, sessionId, path, 1), 500, TimeUnit.MILLISECONDS);
        }
    }

    private void retry(ZooKeeper handle, long sessionId, String path, int attempt) {
        if (tryRelease(handle, sessionId, path)) {
            LOG.info("lock {} released after {} retries", path, attempt);
        } else {
            retries.schedule(() -> retry(handle, sessionId, path, attempt + 1), Math.min(5000, 500L * attempt),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** True when the lock is gone (released, or gone with its session); false when it must be tried again. */
    private boolean tryRelease(ZooKeeper handle, long sessionId, String path) {
        if (handle.getSessionId() != sessionId || !handle.getState().isAlive()) {
            return true; // the session is over, and its ephemeral lock with it
        }
        try {
            Stat st = handle.exists(path, false);
            if (st != null && st.getEphemeralOwner() == sessionId) {
                handle.delete(path, st.getVersion());
            }
            return true;
        } catch (KeeperException.NoNodeException e) {
            return true;
        } catch (KeeperException.SessionExpiredException e) {
            return true;
        } catch (KeeperException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    boolean watch(String path, CuratorWatcher onChange) {
        try {
            return zk.client().checkExists().usingWatcher(onChange).forPath(path) != null;
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
