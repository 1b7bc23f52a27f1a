package org.cdlib.mrt.ingestqueue.services;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run's cancel reaches its thread as an interrupt, held out of a shielded call, and nothing of
 * it outlives the run.
 */
class RunTest {
    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aCancelInterruptsTheRunsThreadAndItsEndClearsIt() {
        Run run = Run.begin();
        assertTrue(run.cancel());
        assertTrue(run.cancelled());
        assertTrue(Thread.currentThread().isInterrupted());
        assertFalse(run.cancel(), "cancelled once");
        run.end();
        assertFalse(Thread.currentThread().isInterrupted(), "the thread's next item starts uninterrupted");
        assertThrows(IllegalStateException.class, Run::current, "the run is no longer the thread's");
    }

    @Test
    void aCancelInsideAShieldedCallWaitsUntilTheCallReturns() {
        Run run = Run.begin();
        try (Run.Shielded inside = Run.shielded()) {
            assertTrue(run.cancel());
            assertFalse(Thread.currentThread().isInterrupted(), "held while inside");
        }
        assertTrue(Thread.currentThread().isInterrupted(), "delivered on leaving");
        assertThrows(CancellationException.class, Run::shielded, "the next shielded call is refused");
        run.end();
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void anEndedRunIsNotCancelled() {
        Run run = Run.begin();
        run.end();
        assertFalse(run.cancel());
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
