package org.cdlib.mrt.ingestqueue.queue.zk;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;

/**
 * Reads that look at every node's size before its data. Anything with access to the ensemble can
 * write a node up to the server's packet limit; read blind, one node of a megabyte in a batch read
 * makes an answer the client refuses ({@code Packet len ... is out of range}), which drops the
 * connection and pauses every consumer of the host, again on every retry. So the stats of a chunk
 * are asked first, pipelined (one round trip), and a node larger than its kind may hold
 * ({@link QueueLimits#nodeBytes}) is not read: its answer carries no data and its Stat (a length no
 * real answer without data has), and readers name it damaged ({@link #absence}) like any node they
 * cannot use.
 */
public final class SizedReads {
    private static final long ANSWER_WAIT_MS = 30_000;

    private SizedReads() {
    }

    /** The most paths one {@link #read} takes: its stats are asked at once. */
    static final int UNIT = 1000;

    /**
     * One unit of paths: missing nodes answer NONODE, oversized ones {@link #OVERSIZED}, the rest
     * their data. The data comes in read transactions of at most {@link QueueLimits#READ_BYTES}
     * each, counted by what each node's kind may hold (a node can grow between its Stat and its
     * read), all sent before the first answer is awaited: a report walking a million jobs waits
     * two round trips per unit, not two per transaction.
     */
    static Map<String, OpResult> read(ZooKeeper zk, List<String> paths) throws KeeperException, InterruptedException {
        Map<String, Stat> stats = stats(zk, paths);
        List<List<String>> transactions = new ArrayList<>();
        List<String> chunk = new ArrayList<>();
        int budget = 0;
        for (String p : paths) {
            Stat st = stats.get(p);
            if (st == null || st.getDataLength() > QueueLimits.nodeBytes(p)) {
                continue;
            }
            int need = QueueLimits.nodeBytes(p) + p.length() + 64;
            if (!chunk.isEmpty() && budget + need > QueueLimits.READ_BYTES) {
                transactions.add(chunk);
                chunk = new ArrayList<>();
                budget = 0;
            }
            chunk.add(p);
            budget += need;
        }
        if (!chunk.isEmpty()) {
            transactions.add(chunk);
        }
        List<CompletableFuture<List<OpResult>>> answers = new ArrayList<>();
        for (List<String> t : transactions) {
            CompletableFuture<List<OpResult>> answer = new CompletableFuture<>();
            // a read multi answers each op on its own (a missing node
            // is an error result); no results: the request failed
            zk.multi(
                    t.stream().map(Op::getData).toList(),
                    (rc, path, ctx, results) -> {
                        if (results != null && results.size() == t.size()) {
                            answer.complete(results);
                        } else {
                            answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(
                                    rc == KeeperException.Code.OK.intValue()
                                            ? KeeperException.Code.SYSTEMERROR.intValue()
                                            : rc)));
                        }
                    },
                    null);
            answers.add(answer);
        }
        Map<String, OpResult> data = new HashMap<>();
        for (int i = 0; i < transactions.size(); i++) {
            List<OpResult> results = await(answers.get(i));
            for (int j = 0; j < results.size(); j++) {
                data.put(transactions.get(i).get(j), results.get(j));
            }
        }
        Map<String, OpResult> out = new LinkedHashMap<>();
        for (String p : paths) {
            Stat st = stats.get(p);
            out.put(p, st == null ? new OpResult.ErrorResult(KeeperException.Code.NONODE.intValue())
                    : data.getOrDefault(p, unread(st)));
        }
        return out;
    }

    private static List<OpResult> await(CompletableFuture<List<OpResult>> answer)
            throws KeeperException, InterruptedException {
        try {
            return answer.get(ANSWER_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new KeeperException.ConnectionLossException();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException k) {
                throw k;
            }
            throw new KeeperException.SystemErrorException();
        }
    }

    /** The stats of {@code paths}, asked at once; a missing node has none. */
    static Map<String, Stat> stats(ZooKeeper zk, List<String> paths) throws KeeperException, InterruptedException {
        Map<String, Stat> out = new ConcurrentHashMap<>();
        CountDownLatch answered = new CountDownLatch(paths.size());
        AtomicInteger failure = new AtomicInteger();
        for (String p : paths) {
            zk.exists(p, false, (rc, path, ctx, stat) -> {
                if (rc == KeeperException.Code.OK.intValue() && stat != null) {
                    out.put(path, stat);
                } else if (rc != KeeperException.Code.NONODE.intValue()) {
                    failure.compareAndSet(0, rc);
                }
                answered.countDown();
            }, null);
        }
        if (!answered.await(ANSWER_WAIT_MS, TimeUnit.MILLISECONDS)) {
            throw new KeeperException.ConnectionLossException();
        }
        if (failure.get() != 0) {
            throw KeeperException.create(KeeperException.Code.get(failure.get()));
        }
        return out;
    }

    /** The answer for a node left unread: no data, its Stat. */
    static OpResult.GetDataResult unread(Stat st) {
        return new OpResult.GetDataResult(null, st);
    }

    /** Bytes of a node left unread for its size; -1 for any other answer. */
    public static int oversizedBytes(OpResult r) {
        return r instanceof OpResult.GetDataResult d
                        && d.getData() == null
                        && d.getStat() != null
                        && d.getStat().getDataLength() > 0
                ? d.getStat().getDataLength()
                : -1;
    }

    /** Why a node's answer gives no data: missing, or oversized ({@link Oversized}, named by fsck as such). */
    public static CorruptNodeException absence(String path, OpResult r) {
        int bytes = oversizedBytes(r);
        return bytes < 0 ? new CorruptNodeException(path, "missing") : new Oversized(path, bytes);
    }

    /** A node left unread for its size. */
    public static final class Oversized extends CorruptNodeException {
        Oversized(String path, int bytes) {
            super(path, "oversized: " + bytes + " bytes, more than the " + QueueLimits.nodeBytes(path)
                    + " a node of this kind may hold; not read");
        }
    }
}
