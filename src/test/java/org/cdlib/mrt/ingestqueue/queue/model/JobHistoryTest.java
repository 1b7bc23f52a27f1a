package org.cdlib.mrt.ingestqueue.queue.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The history's bounds, counted without writing its JSON where the count cannot matter. */
class JobHistoryTest {
    private static final String[] PIECES = {
        "a", "Zz9", "\"", "\\", "\n", "\u0001", "é", "€", "\uD83D\uDE00", " ", "/", "<"
    };

    @Test
    void theCountWithoutWritingIsNeverBelowTheJson() {
        Random r = new Random(30);
        for (int round = 0; round < 500; round++) {
            List<JobHistory.Entry> history = new ArrayList<>();
            for (int i = 0, n = 1 + r.nextInt(8); i < n; i++) {
                history.add(new JobHistory.Entry(
                        text(r, 30),
                        r.nextBoolean() ? null : text(r, 12),
                        text(r, 12),
                        text(r, 40),
                        r.nextInt(4) == 0 ? null : text(r, 200)));
            }
            int exact = QueueJson.write(history).length;
            int bound = JobHistory.jsonBytesAtMost(history);
            assertTrue(bound >= exact, "bound " + bound + " below the JSON's " + exact + " bytes: " + history);
        }
    }

    @Test
    void aLongHistoryLosesOnlyTheOldestEntriesThatDoNotFit() {
        String reason = "x\"\n€".repeat(30); // escapes and three-byte chars: the count is well above the JSON here
        List<JobHistory.Entry> history = List.of();
        int dropped = 0;
        for (int i = 0; i < JobHistory.MAX_ENTRIES; i++) {
            List<JobHistory.Entry> before = history;
            history = JobHistory.append(
                    before, JobHistory.entry(JobState.PENDING, JobState.ESTIMATING, "w@h", i + reason));
            assertTrue(QueueJson.write(history).length <= JobHistory.MAX_BYTES, "within the bound after " + (i + 1));
            assertEquals(i + reason, history.get(history.size() - 1).reason(), "the newest entry is last");
            if (history.size() <= before.size()) { // the oldest went: with it the JSON would not have fitted
                dropped++;
                List<JobHistory.Entry> withOldest = new ArrayList<>(history);
                withOldest.add(0, before.get(before.size() - history.size()));
                assertTrue(QueueJson.write(withOldest).length > JobHistory.MAX_BYTES, "dropped only what did not fit");
            }
        }
        assertTrue(dropped > 0, "the byte bound, not the count, cut this history");
    }

    private static String text(Random r, int most) {
        StringBuilder b = new StringBuilder();
        for (int i = 0, n = r.nextInt(most); i < n; i++) {
            b.append(PIECES[r.nextInt(PIECES.length)]);
        }
        return b.toString();
    }
}
