package org.cdlib.mrt.ingestqueue.queue.fsck;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.SetDataRequest;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.zk.MultiCommit;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The "applied?" answer for a repair whose answer a lost connection hid: after a {@code sync}, every
 * effect of the transaction is there (a created node exists, a deleted one does not, a versioned
 * write left the version one higher, an unversioned one left its data). A repair touches nodes no
 * worker writes while fsck judges them, so what is there is the repair's; answering "no" when it did
 * apply would send it again onto its own result.
 */
final class ReadBack {
    private ReadBack() {
    }

    static MultiCommit.AppliedCheck of(ZooKeeper zk, List<Op> ops) {
        return () -> applied(zk, ops);
    }

    static boolean applied(ZooKeeper zk, List<Op> ops) throws KeeperException, InterruptedException {
        CompletableFuture<Integer> synced = new CompletableFuture<>();
        zk.sync(ops.get(0).getPath(), (rc, p, ctx) -> synced.complete(rc), null);
        try {
            int rc = synced.get(zk.getSessionTimeout(), TimeUnit.MILLISECONDS);
            if (rc != KeeperException.Code.OK.intValue()) {
                throw KeeperException.create(KeeperException.Code.get(rc), ops.get(0).getPath());
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new KeeperException.ConnectionLossException();
        }
        for (Op op : ops) {
            Stat st = zk.exists(op.getPath(), false);
            switch (op.getType()) {
                case ZooDefs.OpCode.create, ZooDefs.OpCode.create2 -> {
                    if (st == null) {
                        return false;
                    }
                }
                case ZooDefs.OpCode.delete -> {
                    if (st != null) {
                        return false;
                    }
                }
                case ZooDefs.OpCode.setData -> {
                    SetDataRequest w = (SetDataRequest) op.toRequestRecord();
                    if (st == null) {
                        return false;
                    }
                    if (w.getVersion() >= 0 ? st.getVersion() != w.getVersion() + 1
                            : !Arrays.equals(w.getData(), zk.getData(op.getPath(), false, null))) {
                        return false;
                    }
                }
                default -> { }
            }
        }
        return true;
    }

    /**
     * Commits a repair that needs no job's lock with a truthful
     * read-back; the failure named as commitUnlocked names it.
     */
    static void commit(ZooKeeperCalls calls, String what, List<Op> ops) {
        ZooKeeper zk = calls.currentHandle();
        try {
            calls.commit(zk, ops, of(zk, ops));
        } catch (KeeperException e) {
            int failed = MultiCommit.firstFailed(e);
            String path = failed >= 0 ? ops.get(failed).getPath() : e.getPath();
            throw new QueueException(what + ": " + e.code() + " at " + path + "; nothing was written", e);
        }
    }
}
