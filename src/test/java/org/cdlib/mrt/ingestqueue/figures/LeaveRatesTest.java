package org.cdlib.mrt.ingestqueue.figures;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.model.FolderChanges;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.junit.jupiter.api.Test;

/** The leave rates from the folders' counts, by hand: no clock, no ZooKeeper. */
class LeaveRatesTest {
    private static final Map<JobState, Integer> FOUR = Map.of(JobState.DOWNLOADING, 4, JobState.PROCESSING, 4);
    /** What those 4 workers would let go a second by their step times (0.5 s). */
    private static final Map<JobState, Double> EIGHT = Map.of(JobState.DOWNLOADING, 8.0, JobState.PROCESSING, 8.0);

    /** The folders' Stats after {@code created} and {@code deleted} references each, as ZooKeeper counts them. */
    private static Map<JobState, FolderChanges> folders(int created, int deleted, int processingCreated,
            int processingDeleted) {
        Map<JobState, FolderChanges> m = new EnumMap<>(JobState.class);
        m.put(JobState.DOWNLOADING, new FolderChanges(created + deleted, created - deleted));
        m.put(JobState.PROCESSING, new FolderChanges(processingCreated + processingDeleted,
                processingCreated - processingDeleted));
        return m;
    }

    @Test
    void onlyIntervalsWithJobsWaitingCountAndTheirLeavesAddUp() {
        LeaveRates rates = new LeaveRates();
        rates.read(0, folders(100, 0, 0, 0), FOUR, EIGHT);
        // each second 6 leave downloading for processing, which holds at most 4 (its workers): never saturated
        for (int t = 1; t <= 5; t++) {
            rates.read(t * 1000L, folders(100, 6 * t, 6 * t, 6 * t - 2), FOUR, EIGHT);
        }
        // the first second is not counted: the workers may only just have started
        assertEquals(Map.of("downloading", List.of(24L, 4000L, 32L)), rates.figures(5000));
        // downloading emptied, then filled again: counted from its second second full
        rates.read(6000, folders(100, 100, 100, 98), FOUR, EIGHT);
        rates.read(7000, folders(200, 100, 100, 100), FOUR, EIGHT);
        rates.read(8000, folders(200, 103, 103, 100), FOUR, EIGHT);
        assertEquals(List.of(24L, 4000L, 32L), rates.figures(8000).get("downloading"));
        rates.read(9000, folders(200, 106, 106, 104), FOUR, EIGHT);
        assertEquals(List.of(27L, 5000L, 40L), rates.figures(9000).get("downloading"),
                "all it kept: fewer than 10 rounds of its 4 workers");
        rates.read(10_000, folders(200, 126, 126, 124), FOUR, EIGHT);
        assertEquals(List.of(41L, 5000L, 40L), rates.figures(10_000).get("downloading"),
                "the newest seconds that hold 10 rounds of its 4 workers, and 3 s at least");
    }

    @Test
    void aHeldQueueAGapOrOtherWorkersStartOver() {
        LeaveRates rates = new LeaveRates();
        rates.read(0, folders(100, 0, 0, 0), FOUR, EIGHT);
        rates.read(1000, folders(100, 0, 0, 0), FOUR, EIGHT); // nothing left any state: held, not counted
        rates.read(2000, folders(100, 10, 10, 10), FOUR, EIGHT);
        rates.read(3000, folders(100, 20, 20, 20), FOUR, EIGHT);
        rates.read(4000, folders(100, 30, 30, 30), FOUR, EIGHT);
        assertEquals(List.of(30L, 3000L, 24L), rates.figures(4000).get("downloading"));
        rates.read(4000 + LeaveRates.GAP_MS + 1, folders(100, 50, 50, 50), FOUR, EIGHT);
        assertEquals(List.of(30L, 3000L, 24L), rates.figures(15_000).get("downloading"),
                "a missed read counts nothing");
        // jobs wait in processing too: downloading lets go what processing takes, not counted
        rates.read(15_000, folders(100, 60, 60, 40), FOUR, EIGHT);
        rates.read(15_500, folders(100, 64, 64, 40), FOUR, EIGHT);
        assertEquals(List.of(30L, 3000L, 24L), rates.figures(15_500).get("downloading"));
        // two more hosts: what 4 workers let go says nothing of 12
        rates.read(16_000, folders(100, 70, 70, 70), Map.of(JobState.DOWNLOADING, 12), EIGHT);
        assertEquals(Map.of(), rates.figures(16_000));
        // and what is older than RECENT_MS is gone
        LeaveRates old = new LeaveRates();
        old.read(0, folders(100, 0, 0, 0), FOUR, EIGHT);
        old.read(1000, folders(100, 10, 10, 10), FOUR, EIGHT);
        old.read(2000, folders(100, 20, 20, 20), FOUR, EIGHT);
        old.read(5000, folders(100, 50, 50, 50), FOUR, EIGHT);
        assertEquals(List.of(40L, 4000L, 32L), old.figures(5000).get("downloading"));
        assertEquals(Map.of(), old.figures(5000 + LeaveRates.RECENT_MS + 1));
    }

    @Test
    void everyHostsMeasureAddsUpAndDamagedFiguresAddNothing() throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> nodes = List.of(
                json.readTree("{\"leave\":{\"downloading\":[30,3000,60],\"processing\":[1,1000,0]}}"),
                json.readTree("{\"leave\":{\"downloading\":[30,3000,60],\"held\":[5,1000,5],\"nonsense\":[1,1,1]}}"),
                json.readTree("{\"leave\":{\"storing\":\"x\",\"notify\":[-1,1000,5],\"recording\":[5,1000]}}"),
                json.readTree("{}"));
        assertEquals(Map.of(JobState.DOWNLOADING, 0.5), LeaveRates.shared(nodes), "60 left of the 120 its workers "
                + "would have let go");
    }
}
