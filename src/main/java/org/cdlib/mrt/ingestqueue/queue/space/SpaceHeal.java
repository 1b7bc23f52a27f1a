package org.cdlib.mrt.ingestqueue.queue.space;

import java.io.Closeable;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the disk counters exact beside mrt-zk's workers (issue 42). mrt-zk's {@code Job.setStatus}
 * moves a job into or out of downloading (a status write, then the state reference deleted and
 * created, no transaction) without touching {@code /ids/space-admitted} or {@code /ids/space-released}.
 * <p>
 * Every move of ours into or out of downloading changes the folder's child version by one and one
 * counter's data version by one, in one transaction; so the <em>mark</em>, the folder's cversion
 * minus both counters' versions, stays as it was under our moves and changes with every move that
 * skipped the counters (and with any repair). A persistent watch on the folder hears each child
 * change; one evaluator thread (events coalesced) reads the folder's {@code Stat} after a sync and
 * both counters: the mark as last accounted means nothing to do; any other mark runs the
 * consistent cut ({@link #check}) and heals what it still finds wrong, then accounts that cut's mark.
 * Provisioning waits for an evaluation begun after its own call ({@link #awaitAccounted}): it never
 * admits on counters a move it could know of has not reached.
 */
public final class SpaceHeal implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(SpaceHeal.class);
    private static final int JOBS_PER_READ = 500;
    private static final int ATTEMPTS = 20;
    /** Looked at this often even when no event came (a watch reset, a lost event). */
    private static final long PERIOD_MS = 30_000;

    /** The jobs in downloading, as the store reads them. */
    public interface Downloading {
        /** The JIDs referenced in {@code /jobs/states/downloading} (the folder is bounded by the disk). */
        List<String> jids();

        /** The sum of their {@code space_needed}, read in one bounded transaction. */
        long spaceNeeded(List<String> jids);

        /**
         * The jobs in downloading from the store's job reads: a state folder's references ({@code refs})
         * and the jobs' summed {@code space_needed}.
         */
        static Downloading of(Function<JobState, List<String>> refs, ToLongFunction<List<String>> spaceNeeded) {
            return new Downloading() {
                @Override
                public List<String> jids() {
                    return refs.apply(JobState.DOWNLOADING).stream().map(QueuePaths::jidOfRef).toList();
                }

                @Override
                public long spaceNeeded(List<String> jids) {
                    return spaceNeeded.applyAsLong(jids);
                }
            };
        }
    }

    /**
     * What a consistent cut found.
     *
     * @param exact    the counters reserve what the jobs in downloading need (after the repair, if one was made)
     * @param detail   what was wrong, or null
     * @param repaired a repair was written
     * @param mark     the cut's mark (cversion − both versions), as the counters stand after it; null when no cut
     *                 held
     */
    public record Result(boolean exact, String detail, boolean repaired, Long mark) {
    }

    private final ZooKeeperCalls zk;
    private final Downloading downloading;
    private final AtomicLong seen = new AtomicLong();
    private final AtomicBoolean queued = new AtomicBoolean();
    private final Object evaluatedLock = new Object();
    private long evaluated; // under evaluatedLock
    private volatile Long accounted;
    private final AtomicLong heals = new AtomicLong();
    private final AtomicLong evaluations = new AtomicLong();
    private ScheduledExecutorService executor;
    private PersistentWatcher watcher;

    public SpaceHeal(ZooKeeperCalls zk, Downloading downloading) {
        this.zk = zk;
        this.downloading = downloading;
    }

    /** Starts the watch on the downloading folder and the evaluator; a first evaluation runs at once. */
    public synchronized SpaceHeal start(CuratorFramework client) {
        if (executor != null) {
            return this;
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "space-heal");
            t.setDaemon(true);
            return t;
        });
        watcher = new PersistentWatcher(client, QueuePaths.jobState(JobState.DOWNLOADING), false);
        watcher.getListenable().addListener(e -> poke());
        watcher.getResetListenable().addListener(this::poke); // a new session: whatever happened meanwhile
        watcher.start();
        executor.scheduleWithFixedDelay(this::poke, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        poke();
        return this;
    }

    @Override
    public synchronized void close() {
        if (watcher != null) {
            watcher.close();
        }
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    /** Counter repairs this healer wrote (tests, benchmark). */
    public long heals() {
        return heals.get();
    }

    /** Evaluations run (tests, benchmark). */
    public long evaluations() {
        return evaluations.get();
    }

    /** Something may have changed: an evaluation is queued unless one is queued already. */
    private void poke() {
        seen.incrementAndGet();
        ScheduledExecutorService ex = executor;
        if (ex != null && queued.compareAndSet(false, true)) {
            try {
                ex.execute(this::evaluate);
            } catch (RejectedExecutionException closed) {
                queued.set(false);
            }
        }
    }

    private void evaluate() {
        queued.set(false); // a poke from here on queues the next evaluation
        long upTo = seen.get();
        evaluations.incrementAndGet();
        try {
            Stat folder = zk.syncedStat(QueuePaths.jobState(JobState.DOWNLOADING));
            SpaceReservation.Counts c = SpaceReservation.Counts.read(zk);
            Long mark = folder == null ? null : mark(folder, c);
            if (mark == null || !mark.equals(accounted)) {
                // a lost answer here is looked at again by the next cut (exact then), only its line is lost
                Result r = check(zk, downloading, true, null,
                        ops -> zk.commitUnlocked("heal the disk reservation", ops));
                if (r.repaired()) {
                    heals.incrementAndGet();
                    LOG.info("disk reservation healed (a move into or out of downloading skipped the counters): {}",
                            r.detail());
                }
                if (r.mark() == null) {
                    poke(); // jobs kept moving: look again (the evaluator's queue paces it)
                    return;
                }
                accounted = r.mark();
            }
            synchronized (evaluatedLock) {
                evaluated = Math.max(evaluated, upTo);
                evaluatedLock.notifyAll();
            }
        } catch (RuntimeException e) {
            ScheduledExecutorService ex = executor;
            if (ex == null || ex.isShutdown()) { // the queue is closing: close() interrupted this read
                LOG.debug("disk reservation not checked: closing ({})", e.getMessage());
                return;
            }
            LOG.warn("disk reservation not checked now, again in a second: {}", e.getMessage());
            ex.schedule(this::poke, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Waits until an evaluation begun after this call has accounted every move into or out of
     * downloading up to it (healing the counters if one skipped them). Several callers share one
     * evaluation. Throws {@link Stale} when none finished within {@code timeoutMs}.
     */
    public void awaitAccounted(long timeoutMs) {
        if (executor == null) {
            return; // not started: a queue with no healer (tests of the counters themselves)
        }
        poke();
        long target = seen.get();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (evaluatedLock) {
            while (evaluated < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new Stale();
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(evaluatedLock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new QueueException("interrupted waiting for the disk reservation to be accounted", e);
                }
            }
        }
    }

    private static long mark(Stat folder, SpaceReservation.Counts c) {
        return (long) folder.getCversion() - c.admittedVersion() - c.releasedVersion();
    }

    /**
     * The consistent cut (fsck's, issue 43): after a sync, the counters and the downloading folder's
     * child version are read before and after the jobs are summed; a move into or out of downloading
     * changes one of them, and the sum is made again. Only what a cut that held still finds wrong is
     * judged; the repair is checked against both counters' versions, so it never overwrites a move.
     * It only ever raises a counter (both count bytes ever admitted or released, never negative):
     * too little reserved raises {@code admitted}, whose version every admission checks, so no
     * admission pipelined on the old counts commits; too much raises {@code released}.
     * {@code hook} (tests) runs between the sum and the second cut.
     */
    public static Result check(ZooKeeperCalls zk, Downloading downloading, boolean repair, Runnable hook,
            Committer committer) {
        String folderPath = QueuePaths.jobState(JobState.DOWNLOADING);
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Stat folderBefore = zk.syncedStat(folderPath);
            SpaceReservation.Counts before = SpaceReservation.Counts.read(zk);
            List<String> jids = downloading.jids();
            long needed = 0;
            for (int i = 0; i < jids.size(); i += JOBS_PER_READ) {
                needed += downloading.spaceNeeded(jids.subList(i, Math.min(jids.size(), i + JOBS_PER_READ)));
            }
            if (hook != null) {
                hook.run();
            }
            SpaceReservation.Counts after = SpaceReservation.Counts.read(zk);
            Stat folderAfter = zk.stat(folderPath);
            boolean folderMoved = folderBefore == null || folderAfter == null
                    || folderBefore.getCversion() != folderAfter.getCversion();
            if (folderMoved || after.admittedVersion() != before.admittedVersion()
                    || after.releasedVersion() != before.releasedVersion()) {
                continue; // a job moved into or out of downloading meanwhile: sum again
            }
            long mark = mark(folderAfter, after);
            long reserved = after.admitted() - after.released();
            if (reserved == needed) {
                return new Result(true, null, false, mark);
            }
            String detail = "the counters reserve " + reserved + " bytes; the " + jids.size()
                    + " job(s) in downloading need " + needed;
            if (!repair) {
                return new Result(false, detail, false, mark);
            }
            Op write;
            Op check;
            if (reserved < needed) {
                long admitted = after.admitted() + (needed - reserved);
                write = Op.setData(QueuePaths.SPACE_ADMITTED, QueueJson.text(admitted), after.admittedVersion());
                check = Op.check(QueuePaths.SPACE_RELEASED, after.releasedVersion());
                detail += "; admitted set to " + admitted;
            } else {
                long released = after.released() + (reserved - needed);
                write = Op.setData(QueuePaths.SPACE_RELEASED, QueueJson.text(released), after.releasedVersion());
                check = Op.check(QueuePaths.SPACE_ADMITTED, after.admittedVersion());
                detail += "; released set to " + released;
            }
            try {
                committer.commit(List.of(check, write));
                return new Result(true, detail, true, mark - 1); // one counter's version moved on
            } catch (QueueException e) {
                // a move got in between: look again
            }
        }
        return new Result(false, "jobs kept moving in and out of downloading during " + ATTEMPTS
                + " attempts; run the check again", false, null);
    }

    /** Commits a repair (a {@link QueueException} when it did not apply). */
    public interface Committer {
        void commit(List<Op> ops);
    }

    /** The counters could not be accounted in time: the admission is decided again later. */
    public static final class Stale extends QueueException {
        Stale() {
            super("the disk reservation is being accounted for a move that skipped the counters; decided again");
        }
    }
}
