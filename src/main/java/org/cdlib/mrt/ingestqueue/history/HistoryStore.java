package org.cdlib.mrt.ingestqueue.history;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.flywaydb.core.Flyway;

/**
 * Finished work, kept for as long as the operator wants: batches and jobs handed over from
 * ZooKeeper, in H2 (a file beside the queue's data, the one-host default) or PostgreSQL (hosts that
 * share the work share it). The schema is Flyway's ({@code db/history}), migrated on the first call
 * that reaches the database, so a database down at the start delays history, not the queue.
 *
 * <p>Writes replace: a job or batch written again (a hand-over resumed after a crash, a batch
 * reported again) is deleted and inserted in one transaction, so it is never there twice. The
 * batch's row is written after all its jobs and is the mark that history holds the batch whole.
 *
 * <p>Every failure to reach the database is a {@link HistoryUnavailableException}, and {@link #status}
 * says whether the last call reached it: the callers then leave the work in ZooKeeper.
 */
public final class HistoryStore implements AutoCloseable {
    /** Results of one search, at most. */
    public static final int MAX_RESULTS = 100;

    private final HistoryDatabase db;
    private final HistoryWrites writes;
    private final OpenIndex open;

    /** {@code user} null: H2's {@code sa}, or what a PostgreSQL URL carries. */
    public HistoryStore(String url, String user, String password) {
        this.db = new HistoryDatabase(url, user, password);
        this.writes = new HistoryWrites(db);
        this.open = new OpenIndex(db);
    }

    /** The index of the work ZooKeeper still holds (issue 45), in the same database. */
    public OpenIndex open() {
        return open;
    }

    /** Whether the last call reached the database, and since when it has not. */
    public HistoryStatus status() {
        return db.status();
    }

    /** Where the database is, without a password: for health and logs. */
    public String where() {
        return db.where();
    }

    // ------------------------------------------------------------------ writes (HistoryWrites)

    /** The jobs, each replacing what history held of it, in one transaction. */
    public void putJobs(List<Job> jobs) {
        writes.putJobs(jobs, Map.of());
    }

    /** As above, with the outside effects of jobs whose status does not carry them (by job id). */
    public void putJobs(List<Job> jobs, Map<String, JobEffects> effects) {
        writes.putJobs(jobs, effects);
    }

    /**
     * The batch as it ends ({@code batch} already carries its final status and report), written
     * after all its jobs: from here on history holds the batch whole.
     */
    public void putBatch(Batch batch, int completed, int failed) {
        writes.putBatch(batch, completed, failed);
    }

    /** Forgets batches that finished before {@code before}, with their jobs, at most {@code maxBatches}: how many. */
    public int purge(Instant before, int maxBatches) {
        return writes.purge(before, maxBatches);
    }

    /** What history holds of a batch: its state and how many reports it had; empty when it holds none. */
    public Optional<Mark> mark(String bid) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT state, reports, jobs FROM finished_batches WHERE batch_id = ?")) {
                s.setString(1, bid);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? Optional.of(new Mark(r.getString(1), r.getInt(2), r.getInt(3)))
                            : Optional.<Mark>empty();
                }
            }
        });
    }

    /** A batch history holds whole: its state (wire form), its reports and its jobs. */
    public record Mark(String state, int reports, int jobs) {
    }

    // ------------------------------------------------------------------ reads

    public Optional<Batch> batch(String bid) {
        return record("SELECT record FROM finished_batches WHERE batch_id = ?", bid, Batch.class);
    }

    /** A finished job's outside effects as kept beside its record (a failed job's); empty when none were. */
    public Optional<JobEffects> effects(String jid) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT effects FROM finished_jobs WHERE job_id = ?")) {
                s.setString(1, jid);
                try (ResultSet r = s.executeQuery()) {
                    String e = r.next() ? r.getString(1) : null;
                    return e == null ? Optional.<JobEffects>empty()
                            : Optional.of(QueueJson.read("history " + jid + " effects", e.getBytes(UTF_8),
                                    JobEffects.class));
                }
            }
        });
    }

    public Optional<Job> job(String jid) {
        return record("SELECT record FROM finished_jobs WHERE job_id = ?", jid, Job.class);
    }

    /** A finished batch's jobs in id order, {@code limit} of them after {@code afterJid} (null: from the first). */
    public List<Job> jobs(String bid, String afterJid, int limit) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT record FROM finished_jobs WHERE batch_id = ?"
                    + " AND job_id > ? ORDER BY job_id LIMIT ?")) {
                s.setString(1, bid);
                s.setString(2, afterJid == null ? "" : afterJid);
                s.setInt(3, Math.max(1, Math.min(limit, 1000)));
                List<Job> out = new ArrayList<>();
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(QueueJson.read("history", r.getString(1).getBytes(
                                UTF_8), Job.class));
                    }
                }
                return out;
            }
        });
    }

    /**
     * A finished batch's jobs in id order, of one state ({@code state} in wire form; null: any),
     * {@code limit} of them from {@code offset}: the API's pages of a batch history holds (added for the reads).
     */
    public List<Job> jobs(String bid, String state, int offset, int limit) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT record FROM finished_jobs WHERE batch_id = ?"
                    + (state == null ? "" : " AND state = ?") + " ORDER BY job_id LIMIT ? OFFSET ?")) {
                int i = 1;
                s.setString(i++, bid);
                if (state != null) {
                    s.setString(i++, state);
                }
                s.setInt(i++, Math.max(1, Math.min(limit, 1000)));
                s.setInt(i, Math.max(0, offset));
                List<Job> out = new ArrayList<>();
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(QueueJson.read("history", r.getString(1).getBytes(UTF_8), Job.class));
                    }
                }
                return out;
            }
        });
    }

    /** Which of these batches history holds whole (at most a hundred asked at once; added for search). */
    public Set<String> held(Collection<String> bids) {
        if (bids.isEmpty()) {
            return Set.of();
        }
        List<String> ids = List.copyOf(bids).subList(0, Math.min(bids.size(), 100));
        return db.query(c -> HistoryDatabase.selectIn(c, "SELECT batch_id FROM finished_batches WHERE batch_id IN ",
                ids));
    }

    /**
     * One round trip that reads nothing: the dashboard's minute sampler asks it, so {@link #status}
     * (health, the dashboard's notice) is at most a minute old while nothing else reaches the
     * database (added for the reads).
     */
    public void ping() {
        db.query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT 1"); ResultSet r = s.executeQuery()) {
                return r.next();
            }
        });
    }

    /** Finished batches and jobs history holds, by the query; newest first. */
    public List<HistoryHit> search(HistoryQuery q) {
        return db.query(c -> new HistorySearch(c, q).run());
    }

    /** How many finished batches and jobs history holds (the dashboard's figure; an index count). */
    public long[] counts() {
        return db.query(c -> {
            long[] n = new long[2];
            try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM finished_batches");
                 ResultSet r = s.executeQuery()) {
                n[0] = r.next() ? r.getLong(1) : 0;
            }
            try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM finished_jobs");
                 ResultSet r = s.executeQuery()) {
                n[1] = r.next() ? r.getLong(1) : 0;
            }
            return n;
        });
    }

    private <T> Optional<T> record(String sql, String id, Class<T> type) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement(sql)) {
                s.setString(1, id);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? Optional.of(QueueJson.read("history " + id,
                            r.getString(1).getBytes(UTF_8), type))
                            : Optional.<T>empty();
                }
            }
        });
    }

    @Override
    public void close() {
        db.close();
    }
}
