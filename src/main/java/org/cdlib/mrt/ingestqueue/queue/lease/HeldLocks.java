package org.cdlib.mrt.ingestqueue.queue.lease;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The ledger of the job locks this process holds on purpose: a lock is entered, with the owner
 * bytes it is (or will be) written with, before its create is sent (a claim, an operator's action,
 * a repair) or before a hand-off rewrites it for the next state's worker, and stays entered while
 * it waits locked in a hand-over queue, runs, or is handed on, until its holder lets go (a release,
 * a move or a deletion that removed it). fsck and the sweep break a lock of this process's session
 * only when no entry names it ({@link LockBreaks}): a lock in its holder's ledger is never broken
 * unattended. An entry is matched by its owner bytes, which carry a claim token no other claim
 * has, so an entry its holder failed to remove never covers a later lock on the same job.
 */
public final class HeldLocks {
    private final Map<String, Set<String>> held = new ConcurrentHashMap<>();
    /** Entries are made under the read lock, a break of our own lock decides and commits under the write lock. */
    private final ReentrantReadWriteLock entering = new ReentrantReadWriteLock();

    /** Job locks only: the ones fsck judges (a batch lock is removed by moves this ledger does not see). */
    static boolean kept(String path) {
        return path.startsWith("/jobs/") && path.endsWith("/lock");
    }

    /** Enters a lock about to be created or rewritten with {@code owner}. */
    public void hold(String path, byte[] owner) {
        if (!kept(path)) {
            return;
        }
        entering.readLock().lock();
        try {
            held.computeIfAbsent(path, p -> ConcurrentHashMap.newKeySet()).add(text(owner));
        } finally {
            entering.readLock().unlock();
        }
    }

    /** Its holder let go of the lock written with {@code owner} (or never got it). */
    public void letGo(String path, byte[] owner) {
        if (!kept(path)) {
            return;
        }
        held.computeIfPresent(path, (p, owners) -> {
            owners.remove(text(owner));
            return owners.isEmpty() ? null : owners;
        });
    }

    /** Whether a lock node holding {@code data} is held on purpose by a holder of this process. */
    public boolean holds(String path, byte[] data) {
        Set<String> owners = held.get(path);
        return owners != null && data != null && owners.contains(text(data));
    }

    /** How many job locks are entered now (for a soak's figures and the tests). */
    public int size() {
        return held.size();
    }

    /** Runs {@code decide} while no lock can be entered: what it reads of the ledger stays true until it returns. */
    <T> T whileNoneEntered(Supplier<T> decide) {
        entering.writeLock().lock();
        try {
            return decide.get();
        } finally {
            entering.writeLock().unlock();
        }
    }

    private static String text(byte[] owner) {
        return new String(owner, StandardCharsets.UTF_8);
    }
}
