package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.cdlib.mrt.ingestqueue.queue.model.JobHistory;
import org.junit.jupiter.api.Test;

/** The storage settle wait counts from the last moment the earlier add could have fetched, not from now. */
class SettleWaitTest {
    static final Duration SETTLE = Duration.ofSeconds(60);
    final Instant now = Instant.parse("2026-03-01T12:00:00Z");

    static JobHistory.Entry move(Instant at, String from, String to) {
        return new JobHistory.Entry(at.toString(), from, to, "w@h", "test");
    }

    @Test
    void anAddBegunHoursAgoWhoseLeaseEndedThenWaitsNothing() {
        Instant begun = now.minus(Duration.ofHours(3));
        List<JobHistory.Entry> history = List.of(move(begun.minusSeconds(5), "processing", "storing"),
                move(begun.plusSeconds(30), "storing", "failed"), move(now.minusSeconds(2), "failed", "storing"));
        assertEquals(0, StoreStep.settleWaitMs(begun.toString(), history, now.minusSeconds(1).toString(), SETTLE, now));
    }

    @Test
    void anAddWhoseLeaseEndedWithItsSessionWaitsFromThisClaim() {
        Instant begun = now.minus(Duration.ofHours(3));
        List<JobHistory.Entry> history = List.of(move(begun.minusSeconds(5), "processing", "storing"));
        assertEquals(
                50_000,
                StoreStep.settleWaitMs(
                        begun.toString(), history, now.minusSeconds(10).toString(), SETTLE, now));
    }

    @Test
    void aRecentLeaseEndWaitsWhatIsLeftAndAnUnreadableTimeTheWhole() {
        Instant begun = now.minusSeconds(40);
        List<JobHistory.Entry> history = List.of(move(now.minusSeconds(20), "storing", "failed"));
        assertEquals(40_000, StoreStep.settleWaitMs(begun.toString(), history, now.toString(), SETTLE, now));
        assertEquals(60_000, StoreStep.settleWaitMs("yesterday", history, now.toString(), SETTLE, now));
    }

    @Test
    void anAddBegunUnderThisVeryLeaseWithNoMoveSinceWaitsTheWholeTime() {
        // the same holder asks again (its add's answer timed out): that add may be fetching still
        Instant claimed = now.minusSeconds(30);
        Instant begun = now.minusSeconds(3);
        assertEquals(60_000, StoreStep.settleWaitMs(begun.toString(), List.of(), claimed.toString(), SETTLE, now));
    }
}
