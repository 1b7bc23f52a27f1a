package org.cdlib.mrt.ingestqueue.figures;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * A batch's (or a job's) estimate as the progress answer gives it: the model ({@link
 * EstimateModel}) fed with every host's step times and workers ({@link StepTimes}, read at most
 * once every {@link #STEPS_FRESH_MS}), what is ahead in run order ({@link RunOrder}) and the
 * estimates' measured error ({@link EstimateErrors}, every host's: {@link SharedErrors}); the answer's
 * fields, or why there is none. A state's steps are the batch's profile's where every host together measured
 * {@link #PROFILE_SAMPLES} of them, else those of all profiles (issue 45).
 */
final class BatchEstimates {
    /** How long every host's step times, once read, serve the answers (a page asks every few seconds). */
    static final long STEPS_FRESH_MS = 1000;
    /** The least steps of a profile in a state, over every host, that its estimates are made of. */
    static final int PROFILE_SAMPLES = 5;
    private final Clock clock;
    private final Supplier<StepTimes.Shared> steps;
    private final EstimateErrors errors = new EstimateErrors();
    private final SharedErrors sharedErrors;
    private StepTimes.Shared stepsRead;
    private long stepsReadAt;

    BatchEstimates(Clock clock, Supplier<StepTimes.Shared> steps, SharedErrors sharedErrors) {
        this.clock = clock;
        this.steps = steps;
        this.sharedErrors = sharedErrors;
    }

    /** A batch ended: its estimates are checked, and when one was, the hosts are told this host's errors. */
    void ended(String bid, long end) {
        if (errors.ended(bid, end)) {
            sharedErrors.publish(errors);
        }
    }

    EstimateErrors errors() {
        return errors;
    }

    private synchronized StepTimes.Shared steps() {
        if (stepsRead == null || clock.millis() - stepsReadAt > STEPS_FRESH_MS || clock.millis() < stepsReadAt) {
            stepsRead = steps.get();
            stepsReadAt = clock.millis();
        }
        return stepsRead;
    }

    /** Puts the estimate's fields into an answer (a batch's or a job's row): the middle and range, or the note. */
    static void put(Map<String, Object> m, Estimate e) {
        if (e.at() != null) {
            m.put("estimated_completion", e.at());
            m.put("estimate_range", Map.of("earliest", e.earliest(), "latest", e.latest()));
        }
        if (e.note() != null) {
            m.put("estimate_note", e.note());
        }
    }

    record Estimate(String at, String earliest, String latest, String note, String basis) {
        static Estimate none(String note) {
            return new Estimate(null, null, null, note, null);
        }
    }

    /**
     * The model's estimate for these jobs (of one batch, so of one profile: null when it names none), from every
     * host's step times and workers.
     */
    Estimate estimate(RunOrder.Target t, String profile) {
        StepTimes.Shared shared = steps();
        List<EstimateModel.Stage> stages = new ArrayList<>();
        int samples = 0;
        int ofProfile = 0;
        for (int i = t.from(); i < RunOrder.PIPELINE.size(); i++) {
            JobState s = RunOrder.PIPELINE.get(i);
            List<Long> own = shared.times(profile, s);
            boolean byProfile = own.size() >= PROFILE_SAMPLES;
            List<Long> times = byProfile ? own : shared.times().get(s);
            ofProfile += byProfile ? own.size() : 0;
            EstimateModel.Stage stage = EstimateModel.Stage.of(s, shared.workers().getOrDefault(s, 0), times)
                    .plus(shared.overhead().getOrDefault(s, 0L) / 1000.0);
            // what its workers let go while jobs waited, as a share of what they would have: its ceiling now
            double share = shared.leaveShares().getOrDefault(s, 1.0);
            stages.add(share < 1 && stage.mean() > 0 ? stage.leaving(share * stage.workers() / stage.mean()) : stage);
            samples += times == null ? 0 : times.size();
        }
        // what passes each state before the last job: what is ahead of it in run order, there and in the states
        // before; and of the jobs waiting there after it in run order, those the state's workers take in the
        // time its first jobs need to get there (after that they go first)
        double[] through = new double[stages.size()];
        double arrives = 0;
        double before = 0;
        for (int i = 0; i < stages.size(); i++) {
            EstimateModel.Stage s = stages.get(i);
            double taken = s.mean() > 0 ? Math.min(t.after()[t.from() + i], s.workers() * arrives / s.mean()) : 0;
            double here = t.inOrder()[t.from() + i] + taken;
            through[i] = before + here;
            before += here;
            arrives += s.mean();
        }
        sharedErrors.readIfDue(errors);
        EstimateErrors.Spread spread = errors.spread();
        EstimateModel.Result r = EstimateModel.estimate(stages, through, spread);
        if (r.note() != null) {
            return Estimate.none(r.note());
        }
        Instant now = clock.instant();
        return new Estimate(at(now, r.seconds()), at(now, r.earliest()), at(now, r.latest()), null,
                EstimateModel.basis(r, measured(profile, ofProfile, samples - ofProfile), spread));
    }

    /** Which steps the estimate was made of, for its basis: "12 measured steps of profile X", or "of all profiles". */
    static String measured(String profile, int ofProfile, int ofAll) {
        if (ofProfile == 0) {
            return ofAll + " measured steps of all profiles";
        }
        String own = ofProfile + " measured steps of profile " + profile;
        return ofAll == 0 ? own : own + " and " + ofAll + " of all profiles (in the states where it has fewer than "
                + PROFILE_SAMPLES + ")";
    }

    private static String at(Instant now, double seconds) {
        return now.plusMillis(Math.round(seconds * 1000)).toString();
    }
}
