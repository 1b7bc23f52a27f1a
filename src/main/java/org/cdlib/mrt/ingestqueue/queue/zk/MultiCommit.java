package org.cdlib.mrt.ingestqueue.queue.zk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;

/**
 * One {@code multi()} sent until its outcome is known. Connection loss is normal, not an error:
 * a transaction whose answer a lost connection hid is read back after reconnecting (the caller's
 * {@link AppliedCheck}) and sent again only when it provably did not apply, so a
 * transition is never applied twice nor assumed.
 */
public final class MultiCommit {
    /**
     * How long a commit waits for a lost connection before it gives up (the outcome then stays unknown to the caller).
     */
    public static final long CONNECT_WAIT_MS = TimeUnit.SECONDS.toMillis(45);

    /** The caller's read-back: whether a transaction whose answer was lost did apply. */
    public interface AppliedCheck {
        boolean applied() throws Exception;
    }

    private final CuratorFramework client;
    private final AtomicLong operations;
    private final Probes probes;

    MultiCommit(CuratorFramework client, AtomicLong operations,
            Probes probes) {
        this.client = client;
        this.operations = operations;
        this.probes = probes;
    }

    /**
     * Runs a multi on the given handle. A lost connection leaves its outcome unknown: the call
     * waits for the connection (bounded by {@link #CONNECT_WAIT_MS}), asks
     * {@code applied}, and commits again only when the transaction provably did not apply. A
     * handle whose session expired meanwhile answers {@link KeeperException.SessionExpiredException}.
     * {@code sent} (if not null) runs as soon as the first attempt is on its way, before its
     * answer: a later transaction of this session sent after that is applied after it (ZooKeeper
     * keeps a session's order). Such a pipelined transaction whose answer was lost and which did
     * not apply is not sent again: {@link StaleCounter}, and its caller builds it again from what
     * it reads (DESIGN, "Pipelined counter updates").
     */
    List<OpResult> send(ZooKeeper zk, List<Op> ops, AppliedCheck applied, Runnable sent) throws KeeperException {
        checkSize(ops);
        long deadline = System.currentTimeMillis() + CONNECT_WAIT_MS;
        boolean first = true;
        while (true) {
            try {
                operations.addAndGet(ops.size());
                if (first && sent != null) {
                    first = false;
                    return multiSent(zk, ops, sent);
                }
                return zk.multi(ops);
            } catch (KeeperException.ConnectionLossException e) {
                if (resolved(zk, applied, deadline)) {
                    return List.of();
                }
                probes.notApplied(ops);
                if (sent != null) {
                    // pipelined: later transactions were built on it and a fresh read may have built
                    // another on the same versions; sent again, it could apply as that one's twin
                    throw new StaleCounter();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueueException("interrupted during commit", e);
            }
        }
    }

    /** The multi sent asynchronously, {@code sent} told at once; then its answer, as the synchronous call gives it. */
    private static List<OpResult> multiSent(ZooKeeper zk, List<Op> ops, Runnable sent)
            throws KeeperException, InterruptedException {
        CompletableFuture<List<OpResult>> answer = new CompletableFuture<>();
        int[] code = new int[1];
        try {
            zk.multi(ops, (rc, path, ctx, results) -> {
                code[0] = rc;
                answer.complete(results);
            }, null);
        } finally {
            sent.run();
        }
        List<OpResult> results;
        try {
            results = answer.get();
        } catch (ExecutionException e) {
            throw new QueueException("commit failed: " + e.getCause(), e.getCause());
        }
        if (code[0] == KeeperException.Code.OK.intValue()) {
            return results;
        }
        if (code[0] == KeeperException.Code.CONNECTIONLOSS.intValue()) {
            throw new KeeperException.ConnectionLossException();
        }
        if (code[0] == KeeperException.Code.SESSIONEXPIRED.intValue()) {
            throw new KeeperException.SessionExpiredException();
        }
        throw failure(ops, results, code[0]);
    }

    /**
     * A failed multi's exception, made from its own answer: the first failing op's code and path
     * (as the synchronous call names them). Never by sending it again: by then another host's write
     * could let it apply.
     */
    static KeeperException failure(List<Op> ops, List<OpResult> results, int rc) {
        if (results != null) {
            for (int i = 0; i < results.size() && i < ops.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult er
                        && er.getErr() != KeeperException.Code.OK.intValue()
                        && er.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return KeeperException.create(KeeperException.Code.get(er.getErr()), ops.get(i).getPath());
                }
            }
        }
        return KeeperException.create(KeeperException.Code.get(rc));
    }

    /** After a lost connection: true when the commit did apply, false when it provably did not. */
    private boolean resolved(ZooKeeper zk, AppliedCheck applied, long deadline) throws KeeperException {
        while (true) {
            awaitConnected(zk, deadline);
            try {
                return applied.applied();
            } catch (KeeperException.ConnectionLossException again) {
                // lost again while reading back: wait and read again
            } catch (KeeperException ke) {
                throw ke;
            } catch (QueueException qe) {
                if (!(qe.getCause() instanceof KeeperException.ConnectionLossException)) {
                    throw qe;
                }
            } catch (Exception ex) {
                throw new QueueException("cannot tell whether a commit applied: " + ex.getMessage(), ex);
            }
        }
    }

    private void awaitConnected(ZooKeeper zk, long deadline) throws KeeperException {
        while (true) {
            ZooKeeper.States state = zk.getState();
            if (!state.isAlive()) {
                throw new KeeperException.SessionExpiredException();
            }
            if (state.isConnected()) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new QueueException("ZooKeeper has been unreachable for " + CONNECT_WAIT_MS / 1000
                        + " s; the outcome of a commit is left to the session (its lock goes with it if it expires)");
            }
            try {
                client.getZookeeperClient().blockUntilConnectedOrTimedOut();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new QueueException("interrupted while waiting for ZooKeeper", e);
            }
        }
    }

    /** A transaction larger than ZooKeeper takes is a bug of ours; refused before it is sent. */
    private static void checkSize(List<Op> ops) {
        long bytes = 0;
        for (Op op : ops) {
            bytes += op.getPath().length() + 32;
            if (op.toRequestRecord() instanceof CreateRequest c) {
                bytes += c.getData() == null ? 0 : c.getData().length;
            } else if (op.toRequestRecord() instanceof SetDataRequest s) {
                bytes += s.getData() == null ? 0 : s.getData().length;
            }
        }
        if (bytes > QueueLimits.PACKET_BYTES - 16 * 1024) {
            throw new QueueException("a transaction of " + ops.size() + " operations and " + bytes
                    + " bytes is larger than ZooKeeper takes; nothing was written");
        }
    }

    /** The index of the operation that failed a transaction, or -1. */
    public static int firstFailed(KeeperException e) {
        List<OpResult> results = e.getResults();
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult er
                    && er.getErr() != KeeperException.Code.OK.intValue()
                    && er.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }
}
