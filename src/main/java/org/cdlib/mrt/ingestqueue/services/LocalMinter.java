package org.cdlib.mrt.ingestqueue.services;

import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.space.Counters;

/**
 * The embedded default: ARKs under a test shoulder (e.g. {@code ark:/99999/fk4}) numbered from
 * a ZooKeeper counter, so hosts sharing the queue never mint the same one (each host draws
 * numbers in blocks). Digits are NOID's
 * betanumeric alphabet (no vowels, no l), as EZID's are.
 */
public final class LocalMinter implements Minter {
    private static final String DIGITS = "0123456789bcdfghjkmnpqrstvwxz";
    private final Counters counters;
    private final String shoulder;

    public LocalMinter(Counters counters, String shoulder) {
        if (!shoulder.startsWith("ark:/")) {
            throw new IllegalArgumentException("ingest.minter.shoulder must start with ark:/, got " + shoulder);
        }
        this.counters = counters;
        this.shoulder = shoulder;
    }

    /**
     * Numbers are drawn from the counter a block at a time: concurrent workers would otherwise
     * contend on the one counter node, each draw a read and a versioned write. A block left unused
     * when the process stops is skipped, never reused.
     */
    static final int BLOCK = 64;
    private long next;
    private long end; // exclusive: the block is used up when next == end

    private synchronized long number() {
        if (next == end) {
            next = counters.nextBlock("minter", BLOCK);
            end = next + BLOCK;
        }
        return next++;
    }

    @Override
    public String mint(Profile profile, Job job) {
        long n = number();
        StringBuilder s = new StringBuilder();
        do {
            s.append(DIGITS.charAt((int) (n % DIGITS.length())));
            n /= DIGITS.length();
        } while (n > 0);
        while (s.length() < 6) {
            s.append('0');
        }
        return shoulder + s.reverse();
    }
}
