package org.cdlib.mrt.ingestqueue.figures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.junit.jupiter.api.Test;

/** The queueing model and its measured error, with figures worked out by hand; no clock, no ZooKeeper. */
class EstimateModelTest {
    static final EstimateModel.Stage DOWNLOADING = new EstimateModel.Stage(JobState.DOWNLOADING, 4, 1.0, 0, 10);
    static final EstimateModel.Stage PROCESSING = new EstimateModel.Stage(JobState.PROCESSING, 8, 0.1, 0, 10);

    @Test
    void theBottleneckDrainsWhatIsAheadThenThePipelineAfterIt() {
        // 41 jobs through downloading on 4 workers kept busy: 10.25 steps; then processing
        EstimateModel.Result r = EstimateModel.estimate(List.of(DOWNLOADING, PROCESSING), new double[] {41, 41}, null);
        assertEquals(10.35, r.seconds(), 1e-9);
        assertEquals(JobState.DOWNLOADING, r.bottleneck());
        assertEquals(41, r.through());
        // no error measured yet and steps that never vary: ±25%
        assertEquals(10.35 * 0.75, r.earliest(), 1e-9);
        assertEquals(10.35 * 1.25, r.latest(), 1e-9);
        // a long queue in processing makes it the bottleneck: 400 on 8 workers, 50 steps of 0.1 s
        r = EstimateModel.estimate(List.of(DOWNLOADING, PROCESSING), new double[] {1, 80}, null);
        assertEquals(JobState.DOWNLOADING, r.bottleneck(), "one step of 1 s + 0.1 s beats 80 × 0.1 / 8");
        r = EstimateModel.estimate(List.of(DOWNLOADING, PROCESSING), new double[] {1, 400}, null);
        assertEquals(JobState.PROCESSING, r.bottleneck());
        assertEquals(400 / 8.0 * 0.1, r.seconds(), 1e-9);
    }

    @Test
    void aStateMeasuredToLetFewerGoThanItsWorkersWouldDrainsAtThatRate() {
        // 12 workers of 0.4 s would let 30 a second go; measured while jobs waited: 12 a second. 120 jobs: 10 s, not 4
        EstimateModel.Stage busy = new EstimateModel.Stage(JobState.DOWNLOADING, 12, 0.4, 0, 10).leaving(12);
        EstimateModel.Result r = EstimateModel.estimate(List.of(busy, PROCESSING), new double[] {120, 120}, null);
        assertEquals(10 + 0.1, r.seconds(), 1e-9);
        assertEquals(12, r.ceiling(), 1e-9);
        assertTrue(EstimateModel.basis(r, "10 measured steps", null).contains("at most 12.0 a second left it"),
                EstimateModel.basis(r, "10 measured steps", null));
        // a rate above what the workers take bounds nothing: the workers' rounds stand, the basis says nothing of it
        r = EstimateModel.estimate(List.of(busy.leaving(50), PROCESSING), new double[] {120, 120}, null);
        assertEquals(120 / 12.0 * 0.4 + 0.1, r.seconds(), 1e-9);
        assertEquals(0, r.ceiling());
        // fewer jobs than workers: one step, whatever the rate
        r = EstimateModel.estimate(List.of(busy), new double[] {3}, null);
        assertEquals(0.4, r.seconds(), 1e-9);
        // not measured (0): as before
        r = EstimateModel.estimate(List.of(busy.leaving(0)), new double[] {120}, null);
        assertEquals(4, r.seconds(), 1e-9);
    }

    @Test
    void theRangeAddsTheStepsSpreadAndThePastError() {
        EstimateModel.Stage spread = new EstimateModel.Stage(JobState.DOWNLOADING, 1, 1.0, 0.5, 10);
        // 4 steps in turn: sd 0.5 × √4 = 1 s of 4 s, 1.645 × 25% either side; with the least error assumed (15%)
        // though past estimates were right
        EstimateModel.Result r = EstimateModel.estimate(List.of(spread), new double[] {4},
                new EstimateErrors.Spread(0, 0, 0, 20));
        assertEquals(4 * (1 - Math.hypot(0.15, 1.645 * 0.25)), r.earliest(), 1e-9);
        assertEquals(4 * (1 + Math.hypot(0.15, 1.645 * 0.25)), r.latest(), 1e-9);
        // past estimates were 10% early (actual 10% longer), spread from -10% to +30%: the middle moves, the range
        // is the error's spread about it
        EstimateModel.Stage steady = new EstimateModel.Stage(JobState.DOWNLOADING, 1, 1.0, 0, 10);
        r = EstimateModel.estimate(List.of(steady), new double[] {4}, new EstimateErrors.Spread(0.1, -0.1, 0.3, 20));
        assertEquals(4.4, r.seconds(), 1e-9);
        assertEquals(4.4 - 1.0, r.earliest(), 1e-9, "its last step may be nearly done: 4.4 × 0.8 goes below");
        assertEquals(4.4 * 1.2, r.latest(), 1e-9);
    }

    @Test
    void noMeasuredStepOrNoWorkerGivesNoEstimateAndSaysWhy() {
        EstimateModel.Stage unmeasured = new EstimateModel.Stage(JobState.STORING, 4, 0, 0, 0);
        EstimateModel.Result r = EstimateModel.estimate(List.of(DOWNLOADING, unmeasured), new double[] {3, 3}, null);
        assertEquals("no step of storing has been measured yet, so there is nothing to estimate from", r.note());
        EstimateModel.Stage nobody = new EstimateModel.Stage(JobState.STORING, 0, 1, 0, 3);
        r = EstimateModel.estimate(List.of(DOWNLOADING, nobody), new double[] {3, 3}, null);
        assertEquals("no live host works on storing now", r.note());
        // newest first: a step 4 steps older weighs half as much
        double w = Math.pow(0.5, 1 / 4.0);
        assertEquals((0.1 + w * 0.3) / (1 + w), EstimateModel.Stage.of(JobState.PENDING, 2, List.of(100L, 300L)).mean(),
                1e-9);
        assertEquals(0, EstimateModel.Stage.of(JobState.PENDING, 2, List.of(200L, 200L, 200L)).sd(), 1e-9);
    }

    @Test
    void errorsAreCheckedWhenTheBatchEndsAndRatesCountItsOwnCompletions() {
        EstimateErrors errors = new EstimateErrors();
        assertNull(errors.spread());
        for (int b = 0; b < 20; b++) {
            // at 0 s, the end estimated at 100 s; it ended at 120 s: 20% late. One estimate a tenth: the second is
            // in the same tenth and not kept
            errors.made("b" + b, 0.15, 0, 100_000);
            errors.made("b" + b, 0.18, 10_000, 50_000);
            errors.ended("b" + b, 120_000);
        }
        assertEquals(0.2, errors.spread().median(), 1e-9);
        assertEquals(0.2, errors.spread().low(), 1e-9);
        errors.ended("b0", 500_000); // checked once: its estimates are forgotten
        assertEquals(20, errors.spread().count());
        // created 2 minutes ago with 30 completed: 15 a minute; 5 more in the next minute: 35 in 3 minutes
        assertEquals(15.0, errors.rate("x", 30, 0, 120_000));
        assertEquals(35 / 3.0, errors.rate("x", 35, 0, 180_000), 0.05);
        assertNull(errors.rate("y", 0, 0, 60_000), "none completed");
    }
}
