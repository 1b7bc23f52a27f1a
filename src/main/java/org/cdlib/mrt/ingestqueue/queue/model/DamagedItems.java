package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The damaged jobs and batches reads skipped: each logged the first time it is seen, every skip counted. */
public final class DamagedItems {
    private static final Logger LOG = LoggerFactory.getLogger("org.cdlib.mrt.ingestqueue.queue.QueueStore");
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final AtomicLong skips = new AtomicLong();

    public void note(Damaged d) {
        skips.incrementAndGet();
        if (seen.add(d.kind() + " " + d.id())) {
            LOG.warn("{} {} is damaged and skipped until repaired or deleted (POST /api/fsck?repair=true, "
                    + "or delete it): {}", d.kind(), d.id(), d.problem());
        }
    }

    public long skips() {
        return skips.get();
    }
}
