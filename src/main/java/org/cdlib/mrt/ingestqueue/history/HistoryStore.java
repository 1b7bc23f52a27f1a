package org.cdlib.mrt.ingestqueue.history;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;
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
    /** Words of one title indexed, at most; and one word's length. */
    static final int TITLE_WORDS = 32;
    static final int WORD_LENGTH = 64;
    /** Results of one search, at most. */
    public static final int MAX_RESULTS = 100;

    private final HikariDataSource pool;
    private final String url;
    private final HistoryStatus status = new HistoryStatus();
    private volatile boolean migrated;

    /** {@code user} null: H2's {@code sa}, or what a PostgreSQL URL carries. */
    public HistoryStore(String url, String user, String password) {
        this.url = url;
        boolean h2 = url.startsWith("jdbc:h2:");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(withOsFileLock(url));
        config.setUsername(user != null ? user : h2 ? "sa" : null);
        config.setPassword(user != null ? password : h2 ? "" : null);
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        config.setPoolName("history");
        config.setInitializationFailTimeout(-1); // a database not up yet fails the first call, not the start
        // a database that is down answers within seconds: the reporting worker and the dashboard wait no longer
        config.setConnectionTimeout(5_000);
        config.setValidationTimeout(2_000);
        this.pool = new HikariDataSource(config);
    }

    /** Whether the last call reached the database, and since when it has not. */
    public HistoryStatus status() {
        return status;
    }

    /** Where the database is, without a password: for health and logs. */
    public String where() {
        int q = url.indexOf('?');
        return q < 0 ? url : url.substring(0, q);
    }

    // ------------------------------------------------------------------ writes

    /** The jobs, each replacing what history held of it, in one transaction. */
    public void putJobs(List<Job> jobs) {
        putJobs(jobs, Map.of());
    }

    /** As above, with the outside effects of jobs whose status does not carry them (by job id). */
    public void putJobs(List<Job> jobs, Map<String, JobEffects> effects) {
        if (jobs.isEmpty()) {
            return;
        }
        List<String> ids = jobs.stream().map(Job::id).toList();
        transaction(c -> {
            deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", ids);
            deleteIn(c, "DELETE FROM finished_local_ids WHERE job_id IN ", ids);
            deleteIn(c, "DELETE FROM finished_jobs WHERE job_id IN ", ids);
            try (PreparedStatement job = c.prepareStatement("INSERT INTO finished_jobs"
                    + " (job_id, batch_id, state, ark, title, finished_at, record, effects)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
                 PreparedStatement local = c.prepareStatement(
                         "INSERT INTO finished_local_ids (local_id, job_id) VALUES (?, ?)");
                 PreparedStatement word = c.prepareStatement(
                         "INSERT INTO finished_words (word, item_id) VALUES (?, ?)")) {
                for (Job j : jobs) {
                    job.setString(1, j.id());
                    job.setString(2, j.batchId());
                    job.setString(3, j.state().wire());
                    job.setString(4, cut(j.identifiers() == null ? null : j.identifiers().primary(), 255));
                    String title = j.configuration() == null ? null : j.configuration().ercWhat();
                    job.setString(5, cut(title, 1024));
                    job.setObject(6, time(QueueTime.parse(j.status().lastModified())));
                    job.setString(7, new String(QueueJson.write(j), UTF_8));
                    JobEffects e = effects.get(j.id());
                    job.setString(8, e == null ? null : new String(QueueJson.write(e), UTF_8));
                    job.addBatch();
                    if (j.identifiers() != null && j.identifiers().localId() != null) {
                        for (String l : j.identifiers().localId().stream().distinct().toList()) {
                            if (l != null && !l.isBlank() && l.length() <= 1024) {
                                local.setString(1, l);
                                local.setString(2, j.id());
                                local.addBatch();
                            }
                        }
                    }
                    addWords(word, title, j.id());
                }
                job.executeBatch();
                local.executeBatch();
                word.executeBatch();
            }
            return null;
        });
    }

    /**
     * The batch as it ends ({@code batch} already carries its final status and report), written
     * after all its jobs: from here on history holds the batch whole.
     */
    public void putBatch(Batch batch, int completed, int failed) {
        transaction(c -> {
            deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", List.of(batch.id()));
            deleteIn(c, "DELETE FROM finished_batches WHERE batch_id IN ", List.of(batch.id()));
            try (PreparedStatement b = c.prepareStatement("INSERT INTO finished_batches (batch_id, state, reports,"
                + " submitter, profile, title, submitted_at, finished_at, jobs, completed_jobs, failed_jobs,"
                + " written_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
                    PreparedStatement word =
                            c.prepareStatement("INSERT INTO finished_words (word, item_id) VALUES (?, ?)")) {
                String title =
                        batch.submission() == null ? null : batch.submission().ercWhat();
                b.setString(1, batch.id());
                b.setString(2, batch.state().wire());
                b.setInt(
                        3,
                        batch.statusReport() == null ? 0 : batch.statusReport().reports());
                b.setString(
                        4,
                        batch.submission() == null
                                ? null
                                : cut(batch.submission().submitter(), 255));
                b.setString(
                        5,
                        batch.submission() == null
                                ? null
                                : cut(batch.submission().profileName(), 255));
                b.setString(6, cut(title, 1024));
                b.setObject(
                        7,
                        time(
                                batch.submission() == null
                                        ? null
                                        : QueueTime.parse(batch.submission().submitted())));
                Instant finished = QueueTime.parse(batch.status().lastModified());
                b.setObject(8, time(finished == null ? Instant.now() : finished));
                b.setInt(9, completed + failed);
                b.setInt(10, completed);
                b.setInt(11, failed);
                b.setObject(12, time(Instant.now()));
                b.setString(13, new String(QueueJson.write(batch), UTF_8));
                b.executeUpdate();
                addWords(word, title, batch.id());
                word.executeBatch();
            }
            return null;
        });
    }

    /**
     * Forgets batches that finished before {@code before}, with their jobs: at most {@code maxBatches}
     * batches, each in transactions of at most {@link #PURGE_CHUNK} jobs (a batch's row goes last, so
     * a purge cut short is finished by the next). How many batches were forgotten.
     */
    public int purge(Instant before, int maxBatches) {
        List<String> bids = query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT batch_id FROM finished_batches WHERE finished_at < ?"
                    + " ORDER BY finished_at LIMIT ?")) {
                s.setObject(1, time(before));
                s.setInt(2, maxBatches);
                List<String> out = new ArrayList<>();
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(r.getString(1));
                    }
                }
                return out;
            }
        });
        for (String bid : bids) {
            for (List<String> jids = jobIdsOf(bid); !jids.isEmpty(); jids = jobIdsOf(bid)) {
                List<String> chunk = jids;
                transaction(c -> {
                    deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", chunk);
                    deleteIn(c, "DELETE FROM finished_local_ids WHERE job_id IN ", chunk);
                    deleteIn(c, "DELETE FROM finished_jobs WHERE job_id IN ", chunk);
                    return null;
                });
            }
            transaction(c -> {
                deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", List.of(bid));
                deleteIn(c, "DELETE FROM finished_batches WHERE batch_id IN ", List.of(bid));
                return null;
            });
        }
        return bids.size();
    }

    /** Jobs deleted together when history forgets a batch. */
    static final int PURGE_CHUNK = 500;

    private List<String> jobIdsOf(String bid) {
        return query(c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT job_id FROM finished_jobs WHERE batch_id = ? ORDER BY job_id LIMIT " + PURGE_CHUNK)) {
                s.setString(1, bid);
                List<String> out = new ArrayList<>();
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(r.getString(1));
                    }
                }
                return out;
            }
        });
    }

    /** What history holds of a batch: its state and how many reports it had; empty when it holds none. */
    public Optional<Mark> mark(String bid) {
        return query(c -> {
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
        return query(c -> {
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
        return query(c -> {
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
        return query(c -> {
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
        return query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT batch_id FROM finished_batches WHERE batch_id IN ("
                    + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")")) {
                for (int i = 0; i < ids.size(); i++) {
                    s.setString(i + 1, ids.get(i));
                }
                Set<String> out = new HashSet<>();
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(r.getString(1));
                    }
                }
                return out;
            }
        });
    }

    /**
     * One round trip that reads nothing: the dashboard's minute sampler asks it, so {@link #status}
     * (health, the dashboard's notice) is at most a minute old while nothing else reaches the
     * database (added for the reads).
     */
    public void ping() {
        query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT 1"); ResultSet r = s.executeQuery()) {
                return r.next();
            }
        });
    }

    /** Finished batches and jobs history holds, by the query; newest first. */
    public List<HistoryHit> search(HistoryQuery q) {
        return query(c -> new HistorySearch(c, q).run());
    }

    /** How many finished batches and jobs history holds (the dashboard's figure; an index count). */
    public long[] counts() {
        return query(c -> {
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
        return query(c -> {
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

    // ------------------------------------------------------------------ plumbing

    /** The lower-case words of a title, each cut to {@link #WORD_LENGTH}, at most {@link #TITLE_WORDS}. */
    static List<String> words(String title) {
        if (title == null || title.isBlank()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String w : title.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            String word = w.length() > WORD_LENGTH ? w.substring(0, WORD_LENGTH) : w;
            if (!word.isEmpty() && !out.contains(word)) {
                out.add(word);
                if (out.size() == TITLE_WORDS) {
                    break;
                }
            }
        }
        return out;
    }

    private static void addWords(PreparedStatement word, String title, String item) throws SQLException {
        for (String w : words(title)) {
            word.setString(1, w);
            word.setString(2, item);
            word.addBatch();
        }
    }

    private static void deleteIn(Connection c, String sql, List<String> ids) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql + "(" + String.join(", ",
                Collections.nCopies(ids.size(), "?")) + ")")) {
            for (int i = 0; i < ids.size(); i++) {
                s.setString(i + 1, ids.get(i));
            }
            s.executeUpdate();
        }
    }

    static OffsetDateTime time(Instant at) {
        return at == null ? null : at.atOffset(ZoneOffset.UTC);
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }

    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * One transaction; run again (up to three times) when it lost a race with another host writing
     * the same rows (a unique key taken meanwhile, a deadlock, a serialization failure): the write
     * replaces, so the last one to commit leaves the same rows.
     */
    private <T> T transaction(Work<T> work) {
        return query(c -> {
            c.setAutoCommit(false);
            try {
                for (int attempt = 1; ; attempt++) {
                    try {
                        T out = work.run(c);
                        c.commit();
                        return out;
                    } catch (SQLException e) {
                        c.rollback();
                        if (attempt == 3 || !lostRace(e)) {
                            throw e;
                        }
                    }
                }
            } catch (RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        });
    }

    /** A unique key another transaction took, a deadlock or a serialization failure (SQLSTATE 23505, 40xxx). */
    private static boolean lostRace(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.equals("23505") || state.startsWith("40"));
    }

    /**
     * One call on a pooled connection. A connection the pool kept across a database restart is
     * broken at its first use: it is evicted and the call made once more on a new one.
     */
    private <T> T query(Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            Connection c = null;
            try {
                migrate();
                c = pool.getConnection();
                T out = work.run(c);
                status.reached(where());
                return out;
            } catch (SQLException | RuntimeException e) {
                if (c != null && e instanceof SQLException) {
                    pool.evictConnection(c);
                    c = null;
                    if (attempt == 1) {
                        continue;
                    }
                }
                if (e instanceof HistoryUnavailableException h) {
                    throw h;
                }
                String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                status.failed(where(), why);
                throw new HistoryUnavailableException("history database " + where() + ": " + why, e);
            } finally {
                if (c != null) {
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // a connection that cannot be given back is the pool's to drop
                    }
                }
            }
        }
    }

    /** Flyway's migration, once: the first call that reaches the database brings the schema up to date. */
    private void migrate() {
        if (migrated) {
            return;
        }
        synchronized (this) {
            if (!migrated) {
                Flyway.configure().dataSource(pool).locations("classpath:db/history")
                        .table("history_schema_version").load().migrate();
                migrated = true;
            }
        }
    }

    /** As the inventory's: an H2 file locked by the operating system (a paused host keeps its database). */
    static String withOsFileLock(String url) {
        boolean file = url.startsWith("jdbc:h2:file:") || url.startsWith("jdbc:h2:./") || url.startsWith("jdbc:h2:/");
        String upper = url.toUpperCase(Locale.ROOT);
        boolean ownLock = upper.contains(";FILE_LOCK=") || upper.contains(";AUTO_SERVER=TRUE");
        return file && !ownLock ? url + ";FILE_LOCK=FS" : url;
    }

    @Override
    public void close() {
        pool.close();
    }
}
