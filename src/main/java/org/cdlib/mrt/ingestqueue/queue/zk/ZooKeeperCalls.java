package org.cdlib.mrt.ingestqueue.queue.zk;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.errors.StaleLockException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;

/**
 * The queue's ZooKeeper calls, each bounded: reads in transactions sized by what their nodes
 * may hold ({@link QueueLimits#nodeBytes}), folders listed only when their {@code Stat} says they
 * are small, writes refused before they reach ZooKeeper when they are too large, and a commit
 * whose outcome a lost connection hid read back after reconnecting, never assumed.
 */
public final class ZooKeeperCalls {
    public static final byte[] EMPTY = new byte[0];

    private final CuratorFramework client;
    private final AtomicLong operations = new AtomicLong();
    private final MultiCommit commits;
    private final Probes probes;

    /** Calls with probes of their own, which nothing sets. */
    public ZooKeeperCalls(CuratorFramework client) {
        this(client, new Probes());
    }

    /** Calls whose points between two calls run {@code probes} (a store's: {@code QueueStore.probes()}). */
    public ZooKeeperCalls(CuratorFramework client, Probes probes) {
        this.client = client;
        this.probes = probes;
        this.commits = new MultiCommit(client, operations, probes);
    }

    /** Where a test steps in between two of these calls ({@link Probes}). */
    public Probes probes() {
        return probes;
    }

    public CuratorFramework client() {
        return client;
    }

    public long operations() {
        return operations.get();
    }

    /** Counts operations sent with the raw asynchronous API. */
    public void counted(int ops) {
        operations.addAndGet(ops);
    }

    public ZooKeeper currentHandle() {
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw wrap("reach ZooKeeper", e);
        }
    }

    public static Op create(String path, byte[] data) {
        return Op.create(path, QueueLimits.checkNode(path, data), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    public static Op setData(String path, byte[] data, int version) {
        return Op.setData(path, QueueLimits.checkNode(path, data), version);
    }

    // ------------------------------------------------------------------ reads

    /**
     * Reads many nodes, in as many read transactions as their size limits need, sent together
     * ({@link SizedReads#read}); a missing node maps to an error result. The {@code Stat} of a
     * folder read this way carries its child count.
     */
    public Map<String, OpResult> readMany(List<String> paths) {
        Map<String, OpResult> out = new LinkedHashMap<>();
        for (int from = 0; from < paths.size(); from += SizedReads.UNIT) {
            readChunk(paths.subList(from, Math.min(paths.size(), from + SizedReads.UNIT)), out);
        }
        return out;
    }

    private void readChunk(List<String> paths, Map<String, OpResult> out) {
        try {
            out.putAll(RetryLoop.callWithRetry(client.getZookeeperClient(),
                    () -> SizedReads.read(client.getZookeeperClient().getZooKeeper(), paths)));
            operations.addAndGet(2L * paths.size()); // the stats, then the data
        } catch (Exception e) {
            throw wrap("read " + paths.get(0) + (paths.size() > 1 ? " and " + (paths.size() - 1) + " more" : ""), e);
        }
    }

    /** A read's data and Stat; null for a missing node and for one left unread for its size ({@link SizedReads}). */
    public static OpResult.GetDataResult dataOf(OpResult r) {
        return r instanceof OpResult.GetDataResult d && SizedReads.oversizedBytes(d) < 0 ? d : null;
    }

    public byte[] read(String path, Stat stat) {
        byte[] data = sized(path, stat);
        if (data == null) {
            throw new NotFoundException("no node " + path);
        }
        return data;
    }

    public byte[] readOrNull(String path) {
        return sized(path, new Stat());
    }

    /** A node's data after its size was looked at ({@link SizedReads}): an oversized node is named damaged, unread. */
    private byte[] sized(String path, Stat into) {
        Stat st = stat(path);
        if (st == null) {
            return null;
        }
        if (st.getDataLength() > QueueLimits.nodeBytes(path)) {
            throw SizedReads.absence(path, SizedReads.unread(st));
        }
        try {
            operations.incrementAndGet();
            return client.getData().storingStatIn(into).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (Exception e) {
            throw wrap("read " + path, e);
        }
    }

    public Stat stat(String path) {
        try {
            operations.incrementAndGet();
            return client.checkExists().forPath(path);
        } catch (Exception e) {
            throw wrap("look up " + path, e);
        }
    }

    /**
     * The node's {@code Stat} as the leader has it now: a {@code sync} first, then the read, in order
     * on one session. A plain read is answered by whichever server the client is connected to, and a
     * follower may not yet have applied a session's expiry or another host's create; a host judging
     * another host's lease (storage fetching files under it) must not act on that.
     */
    public Stat syncedStat(String path) {
        try {
            return RetryLoop.callWithRetry(client.getZookeeperClient(), () -> {
                ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
                CompletableFuture<Integer> synced = new CompletableFuture<>();
                operations.addAndGet(2);
                zk.sync(path, (rc, p, ctx) -> synced.complete(rc), null);
                Stat st = zk.exists(path, false); // answered after the sync: requests of a session are served in order
                int rc = synced.get(client.getZookeeperClient().getConnectionTimeoutMs(), TimeUnit.MILLISECONDS);
                if (rc != KeeperException.Code.OK.intValue()) {
                    throw KeeperException.create(KeeperException.Code.get(rc), path);
                }
                return st;
            });
        } catch (Exception e) {
            throw wrap("read " + path + " after a sync", e);
        }
    }

    /** The chroot of the connect string ("host:port/merritt" → "/merritt"), empty when there is none. */
    public String chroot() {
        String connect = client.getZookeeperClient().getCurrentConnectionString();
        int slash = connect == null ? -1 : connect.indexOf('/');
        return slash < 0 || connect.length() == slash + 1 ? "" : connect.substring(slash);
    }

    public boolean exists(String path) {
        return stat(path) != null;
    }

    public Stat statOrNull(ZooKeeper zk, String path) {
        try {
            operations.incrementAndGet();
            return zk.exists(path, false);
        } catch (KeeperException e) {
            throw new QueueException("cannot read " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueueException("interrupted reading " + path, e);
        }
    }

    /**
     * The children of a folder that is kept small (open job states, the open batch indexes, a
     * batch's open jobs). A folder that grew past {@link QueueLimits#LISTED_CHILDREN} is refused
     * with its count instead of an answer larger than a ZooKeeper packet.
     */
    public List<String> children(String path) {
        Stat st = stat(path);
        if (st == null) {
            return List.of();
        }
        if (st.getNumChildren() > QueueLimits.LISTED_CHILDREN) {
            throw new FolderTooLargeException(path, st.getNumChildren());
        }
        return list(path);
    }

    /**
     * As {@link #children(String)}, for a folder whose children were counted earlier ({@code counted},
     * -1: not) and that only the caller adds to, a few at most: listed without asking the count again.
     */
    public List<String> children(String path, int counted) {
        return counted < 0 || counted > QueueLimits.LISTED_CHILDREN - 100 ? children(path) : list(path);
    }

    private List<String> list(String path) {
        try {
            operations.incrementAndGet();
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw wrap("list " + path, e);
        }
    }

    public void createPersistent(String path, byte[] data) {
        try {
            operations.incrementAndGet();
            client.create().creatingParentsIfNeeded().forPath(path, QueueLimits.checkNode(path, data));
        } catch (KeeperException.NodeExistsException e) {
            // already there
        } catch (Exception e) {
            throw wrap("create " + path, e);
        }
    }

    public boolean deleteIfExists(String path) {
        try {
            operations.incrementAndGet();
            client.delete().forPath(path);
            return true;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            throw wrap("delete " + path, e);
        }
    }

    // ------------------------------------------------------------------ commits

    /**
     * Runs a multi on the given handle; a lost connection's unknown outcome is resolved with
     * {@code applied} ({@link MultiCommit}).
     */
    public List<OpResult> commit(ZooKeeper zk, List<Op> ops, MultiCommit.AppliedCheck applied) throws KeeperException {
        return commits.send(zk, ops, applied, null);
    }

    /** As above; {@code sent} (if not null) runs once the first attempt is on its way ({@link MultiCommit#send}). */
    public List<OpResult> commit(ZooKeeper zk, List<Op> ops, MultiCommit.AppliedCheck applied, Runnable sent)
            throws KeeperException {
        return commits.send(zk, ops, applied, sent);
    }

    /**
     * How the layer that knows the layout reads a failed operation of a commit under a lock: these
     * calls know no path of the queue's, so the caller says which failures mean what.
     */
    public interface Failures {
        /** A counter moved under the commit, or an id it drew was taken: the draw is made again. */
        boolean counterMoved(String path, KeeperException.Code code);

        /** The lock the commit ran under is gone. */
        boolean lockGone(String path, KeeperException.Code code);
    }

    /**
     * Commits a transaction made under a lock. A failed version check on {@code versionedPath}, or a
     * lock {@code failures} reads as gone, means someone else moved first: {@link StaleLockException};
     * a counter {@code failures} reads as moved: {@link StaleCounter}.
     */
    public List<OpResult> commitLocked(ZooKeeper zk, long sessionId, String what, List<Op> ops, String versionedPath,
            int version, Failures failures) {
        return commitLocked(zk, sessionId, what, ops, versionedPath, version, null, failures);
    }

    /**
     * As above; {@code sent} runs once the first attempt is on its way (see
     * {@link #commit(ZooKeeper, List, MultiCommit.AppliedCheck, Runnable)}).
     */
    public List<OpResult> commitLocked(ZooKeeper zk, long sessionId, String what, List<Op> ops, String versionedPath,
            int version, Runnable sent, Failures failures) {
        if (zk.getSessionId() != sessionId || !zk.getState().isAlive()) {
            throw new StaleLockException(what + ": the session that held the lock has expired");
        }
        try {
            return commit(zk, ops, () -> {
                Stat st = statOrNull(zk, versionedPath);
                return st != null && st.getVersion() == version + 1;
            }, sent);
        } catch (KeeperException.SessionExpiredException e) {
            throw new StaleLockException(what + ": the session that held the lock has expired; nothing was written");
        } catch (KeeperException e) {
            int failed = MultiCommit.firstFailed(e);
            Op op = failed >= 0 && failed < ops.size() ? ops.get(failed) : null;
            String path = op == null ? e.getPath() : op.getPath();
            if (path != null && failures.counterMoved(path, e.code())) {
                throw new StaleCounter(); // an id another writer took: skipped, the next drawn
            }
            if (path != null && path.equals(versionedPath) && e.code() == KeeperException.Code.BADVERSION) {
                throw new StaleLockException(what + " was changed by someone else since it was read; nothing was "
                        + "written");
            }
            if (path != null && failures.lockGone(path, e.code())) {
                throw new StaleLockException(what + ": the lock is no longer held; nothing was written");
            }
            throw new CorruptNodeException(path == null ? what : path,
                    e.code() + " during " + what + " transition (run the consistency check); nothing was written");
        }
    }

    /** Runs a multi that needs no lock (repairs, cleanup), with the current handle. */
    public void commitUnlocked(String what, List<Op> ops) {
        try {
            commit(currentHandle(), ops, () -> false);
        } catch (KeeperException e) {
            int failed = MultiCommit.firstFailed(e);
            String path = failed >= 0 ? ops.get(failed).getPath() : e.getPath();
            throw new QueueException(what + ": " + e.code() + " at " + path + "; nothing was written", e);
        }
    }

    public static QueueException wrap(String action, Exception e) {
        if (e instanceof QueueException qe) {
            return qe;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new QueueException("cannot " + action + ": " + e, e);
    }
}
