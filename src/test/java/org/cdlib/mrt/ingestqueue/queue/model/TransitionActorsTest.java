package org.cdlib.mrt.ingestqueue.queue.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Who may make each move (the design's table: worker, operator, the queue itself) is checked,
 * not only which moves exist: every row of both tables is allowed to its actor and refused to
 * the others, naming who may; an operator cannot delete a completed job or batch.
 */
class TransitionActorsTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path dir = ZK.dir();

    @Test
    void everyRowOfBothTablesIsAllowedToItsActorAndRefusedToTheOthersNamingWhoMay() {
        int refused = 0;
        for (Transition<JobState> t : Transitions.JOB) {
            assertEquals(t.by(), Transitions.requireJob("jid0000000001", t.from(), t.to(), t.by()).by());
            for (Transition.By other : Transition.By.values()) {
                boolean allowed = Transitions.JOB.stream()
                        .anyMatch(r -> r.from() == t.from() && r.to() == t.to() && r.by() == other);
                if (!allowed) {
                    IllegalTransitionException e = assertThrows(IllegalTransitionException.class,
                            () -> Transitions.requireJob("jid0000000001", t.from(), t.to(), other));
                    assertTrue(
                            e.getMessage().contains("is made by ")
                                    && e.getMessage().contains(Transitions.actor(t.by())),
                            e.getMessage());
                    assertTrue(e.getMessage().contains("not by " + Transitions.actor(other)), e.getMessage());
                    refused++;
                }
            }
        }
        for (Transition<BatchState> t : Transitions.BATCH) {
            assertEquals(t.by(), Transitions.requireBatch("bid0000000001", t.from(), t.to(), t.by()).by());
            for (Transition.By other : Transition.By.values()) {
                boolean allowed = Transitions.BATCH.stream()
                        .anyMatch(r -> r.from() == t.from() && r.to() == t.to() && r.by() == other);
                if (!allowed) {
                    assertThrows(
                            IllegalTransitionException.class,
                            () -> Transitions.requireBatch("bid0000000001", t.from(), t.to(), other));
                    refused++;
                }
            }
        }
        assertTrue(refused >= 100, "every row was tried with the other actors: " + refused);
    }

    @Test
    void anOperatorCannotDeleteACompletedJobOrBatchOnlyCleanupRemovesThem() {
        QueueStore store = ZK.store(dir);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        QueueTestSupport.walk(store, jid, QueueTestSupport.pipelineTo(JobState.COMPLETED));
        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        IllegalTransitionException e =
                assertThrows(IllegalTransitionException.class, () -> admin.deleteJob(jid, true, "op"));
        assertTrue(
                e.getMessage().contains("is made by the queue itself (cleanup), not by an operator"), e.getMessage());
        assertEquals(JobState.COMPLETED, store.jobs().load(jid).state(), "nothing changed");
    }
}
