package org.cdlib.mrt.ingestqueue.figures;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The estimates' own measured error, and each batch's recent completions. For each batch asked
 * about (the last {@link #BATCHES}), the estimates made of its remaining time (at most one per
 * tenth of its progress) and its completed count now and then. When a batch is seen finished, each
 * of its estimates is checked against its actual end: {@code actual remaining / estimated
 * remaining - 1} joins a ring of the last {@link #KEPT} errors, from which the model takes its
 * bias and range ({@link #spread}), with those other hosts checked ({@link #others}, through
 * {@link SharedErrors}). Fixed-size rings and a bounded map: nothing grows.
 */
public final class EstimateErrors {
    static final int BATCHES = 1000;
    static final int KEPT = 200;
    /** This host's newest errors that the other hosts count ({@link #own}). */
    static final int SHARED = 60;
    /** Errors checked before they are used: fewer tell nothing of the spread. */
    static final int ENOUGH = 20;
    /** An estimate made this close to the end (ms) is not checked: a second's jitter is no error of the model. */
    static final long TOO_CLOSE_MS = 3000;
    static final long RATE_WINDOW_MS = 15 * 60_000L;
    private static final int SAMPLES = 64;

    /** The errors' median and the 5th and 95th percentiles, of {@code count} checked estimates. */
    public record Spread(double median, double low, double high, int count) {
    }

    private record Made(long at, long end) {
    }

    private static final class Seen {
        final Map<Integer, Made> made = new LinkedHashMap<>();
        final ArrayDeque<long[]> completed = new ArrayDeque<>();
    }

    private final ArrayDeque<Double> errors = new ArrayDeque<>();
    private List<Double> others = List.of();
    private final Map<String, Seen> batches = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
            return size() > BATCHES;
        }
    };

    /** An estimate made at {@code now} that the batch ends at {@code end}, when {@code done} of it (0..1) is done. */
    public synchronized void made(String bid, double done, long now, long end) {
        int tenth = (int) Math.floor(Math.max(0, Math.min(1, done)) * 10);
        batches.computeIfAbsent(bid, k -> new Seen()).made.putIfAbsent(tenth, new Made(now, end));
    }

    /** The batch ended at {@code end}: its estimates are checked and forgotten; true when one was checked. */
    public synchronized boolean ended(String bid, long end) {
        Seen s = batches.get(bid);
        if (s == null) {
            return false;
        }
        boolean checked = false;
        for (Made m : s.made.values()) {
            long actual = end - m.at();
            long estimated = m.end() - m.at();
            if (actual >= TOO_CLOSE_MS && estimated > 0) {
                errors.addLast((double) actual / estimated - 1);
                if (errors.size() > KEPT) {
                    errors.pollFirst();
                }
                checked = true;
            }
        }
        s.made.clear();
        return checked;
    }

    /** This host's newest {@link #SHARED} checked errors in percent, oldest first: what the other hosts count. */
    public synchronized List<Long> own() {
        List<Long> out = new ArrayList<>();
        errors.stream().skip(Math.max(0, errors.size() - SHARED)).forEach(e -> out.add(Math.round(e * 100)));
        return out;
    }

    /** The errors the other hosts checked, counted with this host's own from now on (in place of the last ones). */
    public synchronized void others(List<Double> checkedElsewhere) {
        others = List.copyOf(checkedElsewhere);
    }

    /** The measured error of this host's checks and the other hosts', null until {@link #ENOUGH} were checked. */
    public synchronized Spread spread() {
        if (errors.size() + others.size() < ENOUGH) {
            return null;
        }
        List<Double> e = new ArrayList<>(errors);
        e.addAll(others);
        return new Spread(EstimateModel.quantile(e, 0.5), EstimateModel.quantile(e, 0.05),
                EstimateModel.quantile(e, 0.95), e.size());
    }

    /**
     * The batch's jobs completed per minute over the last 15 minutes, from its completed count as
     * seen each time it was asked about (a batch created within the window started at none); null
     * when none completed in what this instance saw.
     */
    public synchronized Double rate(String bid, long completed, long createdAt, long now) {
        ArrayDeque<long[]> samples = batches.computeIfAbsent(bid, k -> new Seen()).completed;
        while (!samples.isEmpty() && samples.peekFirst()[0] < now - RATE_WINDOW_MS) {
            samples.pollFirst();
        }
        long[] from = createdAt >= now - RATE_WINDOW_MS ? new long[] {createdAt, 0} : samples.peekFirst();
        if (samples.isEmpty() || samples.peekLast()[0] < now - RATE_WINDOW_MS / SAMPLES) {
            samples.addLast(new long[] {now, completed});
            if (samples.size() > SAMPLES) {
                samples.pollFirst();
            }
        }
        if (from == null || completed <= from[1] || now <= from[0]) {
            return null;
        }
        double minutes = Math.max(1.0 / 60, (now - from[0]) / 60_000.0);
        return Math.round((completed - from[1]) / minutes * 10) / 10.0;
    }
}
