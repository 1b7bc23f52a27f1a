package org.cdlib.mrt.ingestqueue.figures;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * When the last of a set of jobs (a batch, or one job) should leave notify, by a pipelined
 * queueing model of the states still to pass. Each state {@code s} has {@code c} workers and a
 * measured step time (mean μ, standard deviation σ). The {@code W} jobs that pass {@code s}
 * before the set's last job is through it (in priority order, the set's own included) drain in
 * {@code W / c × μ} (workers busy with jobs started one after another: the last one starts
 * {@code (W - c) / c × μ} from now and takes a step), and never in less than one step, nor in
 * less than {@code W / r} when the state was measured to let at most {@code r} jobs a second go
 * while jobs waited in it ({@link LeaveRates}: hosts sharing too few cores do not deliver what their
 * workers would). The last job then still passes the states after {@code s}, one step each. The estimate is the
 * largest of these sums over the states: the bottleneck's drain plus the pipeline after it. Its
 * range is the spread the step times give that sum (1.645 σ of it: about 90%), widened by the
 * estimates' own measured error ({@link EstimateErrors}), or by {@link #UNMEASURED_ERROR} before
 * any was measured; its earliest end is at most one pass of the pipeline from the bottleneck on before the
 * middle (the jobs in a step now may be nearly through it). No clock, no ZooKeeper: what it is given, it answers.
 */
public final class EstimateModel {
    /** The error assumed either side while no estimate's error was measured yet. */
    static final double UNMEASURED_ERROR = 0.25;
    /** The least error assumed either side however well past estimates did: the load of the hosts changes. */
    static final double LEAST_ERROR = 0.15;
    /** How far the middle of a 90% range sits from the mean of a normal spread, in standard deviations. */
    static final double Z90 = 1.645;
    /** The step times' half-life in a state's mean, in steps (newest first). */
    static final double HALF_LIFE = 4;

    private EstimateModel() {
    }

    /**
     * A state's measured step times (seconds) and workers, and the jobs a second measured to leave it
     * while jobs waited in it ({@code leaveRate}; 0: not measured).
     */
    public record Stage(JobState state, int workers, double mean, double sd, int samples, double leaveRate) {
        public Stage(JobState state, int workers, double mean, double sd, int samples) {
            this(state, workers, mean, sd, samples, 0);
        }

        /** The same with {@code seconds} more a job: a worker's time beyond the step (its claim and commit). */
        Stage plus(double seconds) {
            return samples == 0 ? this : new Stage(state, workers, mean + seconds, sd, samples, leaveRate);
        }

        /** The same with its measured leave rate (jobs a second while saturated; 0: none measured). */
        Stage leaving(double perSecond) {
            return new Stage(state, workers, mean, sd, samples, Math.max(0, perSecond));
        }

        /**
         * How long {@code through} jobs take to pass it: their rounds on its workers, each a step (at
         * least one), or what its measured leave rate lets go, whichever is longer.
         */
        double drain(double through) {
            double steps = rounds(through) * mean;
            return leaveRate > 0 ? Math.max(steps, through / leaveRate) : steps;
        }

        double rounds(double through) {
            return Math.max(1, through / workers);
        }

        /**
         * From step times in milliseconds, newest first; mean and sd 0 when there are none. Each
         * time weighs half as much as the one {@link #HALF_LIFE} steps newer, so a payload server that
         * slowed down shows in a few steps, while a steady state's spread still counts all of them.
         */
        static Stage of(JobState state, int workers, List<Long> millis) {
            int n = millis == null ? 0 : millis.size();
            if (n == 0) {
                return new Stage(state, workers, 0, 0, 0);
            }
            double weights = 0;
            double sum = 0;
            for (int i = 0; i < n; i++) {
                double w = Math.pow(0.5, i / HALF_LIFE);
                weights += w;
                sum += w * millis.get(i) / 1000.0;
            }
            double mean = sum / weights;
            double sq = 0;
            for (int i = 0; i < n; i++) {
                double d = millis.get(i) / 1000.0 - mean;
                sq += Math.pow(0.5, i / HALF_LIFE) * d * d;
            }
            return new Stage(state, workers, mean, n > 1 ? Math.sqrt(sq / weights * n / (n - 1)) : 0, n);
        }
    }

    /**
     * The answer: seconds from now to the middle and both ends of the range, the bottleneck state
     * and the jobs that pass it; or, with {@code note} set, why there is none.
     */
    public record Result(double seconds, double earliest, double latest, JobState bottleneck, int through,
                         int workers, double step, double ceiling, String note) {
        static Result none(String note) {
            return new Result(0, 0, 0, null, 0, 0, 0, 0, note);
        }
    }

    /**
     * {@code stages}: the states from the earliest one a job of the set is in, to notify, in
     * pipeline order; {@code through[i]}: the jobs that pass {@code stages[i]} before the set's
     * last job is through it, itself included (0: none of the set passes it). {@code error}:
     * the measured error of past estimates, null when none was measured.
     */
    public static Result estimate(List<Stage> stages, double[] through, EstimateErrors.Spread error) {
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            if (through[i] > 0 && s.samples() == 0) {
                return Result.none("no step of " + s.state().wire() + " has been measured yet, so there is "
                        + "nothing to estimate from");
            }
            if (through[i] > 0 && s.workers() <= 0) {
                return Result.none("no live host works on " + s.state().wire() + " now");
            }
        }
        double best = -1;
        double bestVariance = 0;
        int at = -1;
        for (int i = 0; i < stages.size(); i++) {
            if (through[i] <= 0) {
                continue;
            }
            Stage s = stages.get(i);
            double rounds = s.rounds(through[i]);
            double finish = s.drain(through[i]);
            // the jobs a worker takes in turn add their spread up: sd × √rounds
            double variance = rounds * s.sd() * s.sd();
            for (int j = i + 1; j < stages.size(); j++) {
                finish += stages.get(j).mean();
                variance += stages.get(j).sd() * stages.get(j).sd();
            }
            if (finish > best) {
                best = finish;
                bestVariance = variance;
                at = i;
            }
        }
        if (at < 0) {
            return Result.none("no job of it is open");
        }
        double spread = best > 0 ? Z90 * Math.sqrt(bestVariance) / best : 0;
        double bias = error == null ? 0 : error.median();
        double below = error == null ? UNMEASURED_ERROR : Math.max(LEAST_ERROR, error.median() - error.low());
        double above = error == null ? UNMEASURED_ERROR : Math.max(LEAST_ERROR, error.high() - error.median());
        double mid = best * (1 + bias);
        double earliest = mid * Math.max(0.05, 1 - Math.hypot(below, spread));
        double latest = mid * (1 + Math.hypot(above, spread));
        Stage b = stages.get(at);
        // a job in a step now may be nearly through it: the earliest is at most one pass of the pipeline from the
        // bottleneck on before the middle
        double pass = 0;
        for (int j = at; j < stages.size(); j++) {
            pass += stages.get(j).mean();
        }
        earliest = Math.min(earliest, Math.max(0, mid - pass));
        // the leave rate as the basis says it: only when it, not the workers, bound the bottleneck's drain
        double ceiling = b.drain(through[at]) > b.rounds(through[at]) * b.mean() ? b.leaveRate() : 0;
        return new Result(mid, earliest, latest, b.state(), (int) Math.round(through[at]), b.workers(), b.mean(),
                ceiling, null);
    }

    /** The basis in one sentence, for the depositor's page; {@code measured}: the steps it rests on, said. */
    public static String basis(Result r, String measured, EstimateErrors.Spread error) {
        String errorPart = error == null
                ? "no earlier estimate has been checked yet, so ±" + Math.round(UNMEASURED_ERROR * 100)
                        + "% is assumed"
                : "earlier estimates were off by " + percent(error.low()) + " to " + percent(error.high())
                        + " (" + error.count() + " checked)";
        String ceiling = r.ceiling() <= 0 ? "" : String.format(Locale.ROOT, "; while jobs waited there, at most "
                + "%.1f a second left it, fewer than its workers take", r.ceiling());
        return String.format(Locale.ROOT, "From %s: %s is the slowest state for this batch "
                + "(%d workers, %.1f s a step, %d jobs to pass ahead of and in this batch%s); the range adds the "
                + "steps' spread, and %s.", measured, r.bottleneck().wire(), r.workers(), r.step(), r.through(),
                ceiling, errorPart);
    }

    private static String percent(double x) {
        return (x >= 0 ? "+" : "") + Math.round(x * 100) + "%";
    }

    /** The value at quantile {@code q} (0..1) of the values, sorted in place. */
    static double quantile(List<Double> values, double q) {
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        return v.get(Math.min(v.size() - 1, Math.max(0, (int) Math.round(q * (v.size() - 1)))));
    }
}
