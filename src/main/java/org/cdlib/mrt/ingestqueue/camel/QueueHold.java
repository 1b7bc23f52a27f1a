package org.cdlib.mrt.ingestqueue.camel;

import org.apache.curator.framework.api.CuratorWatcher;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * Whether the whole queue is held ({@code /locks/queue/ingest}), as a consumer sees it: read once
 * with a watch and kept while the watch stands. The watch fires on any change of the hold, and a
 * lost or new session forgets the answer, so a dispatcher pass costs no ZooKeeper request for it.
 */
final class QueueHold {
    private final QueueStore store;
    private final CuratorWatcher watcher;
    private Boolean held; // null: to be read again
    private long reads;

    QueueHold(QueueStore store, Runnable onChange) {
        this.store = store;
        this.watcher = event -> {
            forget();
            onChange.run();
        };
    }

    boolean held() {
        long read;
        synchronized (this) {
            if (held != null) {
                return held;
            }
            read = ++reads;
        }
        boolean now = store.watchQueueHold(watcher);
        synchronized (this) {
            if (read == reads) { // no watch fired meanwhile: the answer is still current
                held = now;
            }
        }
        return now;
    }

    /** True only when the queue is known not to be held (no request: a hand-off must not wait or fail on it). */
    synchronized boolean knownFree() {
        return Boolean.FALSE.equals(held);
    }

    /** The answer may be out of date (the watch fired, the session changed): read it again next time. */
    synchronized void forget() {
        held = null;
        reads++;
    }
}
