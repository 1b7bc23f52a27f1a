package org.cdlib.mrt.ingestqueue.history;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.model.QueueTime;

/**
 * What history writes: jobs and batches, each replacing what it held of them (a delete and an
 * insert in one transaction, so nothing is there twice), with their index rows (local ids, title
 * words); and forgetting batches past history's retention.
 */
final class HistoryWrites {
    /** Words of one title indexed, at most; and one word's length. */
    static final int TITLE_WORDS = 32;
    static final int WORD_LENGTH = 64;
    private final HistoryDatabase db;

    HistoryWrites(HistoryDatabase db) {
        this.db = db;
    }

    /** As above, with the outside effects of jobs whose status does not carry them (by job id). */
    void putJobs(List<Job> jobs, Map<String, JobEffects> effects) {
        if (jobs.isEmpty()) {
            return;
        }
        List<String> ids = jobs.stream().map(Job::id).toList();
        db.transaction(c -> {
            HistoryDatabase.deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", ids);
            HistoryDatabase.deleteIn(c, "DELETE FROM finished_local_ids WHERE job_id IN ", ids);
            HistoryDatabase.deleteIn(c, "DELETE FROM finished_jobs WHERE job_id IN ", ids);
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
                    job.setObject(6, HistoryDatabase.time(QueueTime.parse(j.status().lastModified())));
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
    void putBatch(Batch batch, int completed, int failed) {
        db.transaction(c -> {
            HistoryDatabase.deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", List.of(batch.id()));
            HistoryDatabase.deleteIn(c, "DELETE FROM finished_batches WHERE batch_id IN ", List.of(batch.id()));
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
                        HistoryDatabase.time(
                                batch.submission() == null
                                        ? null
                                        : QueueTime.parse(batch.submission().submitted())));
                Instant finished = QueueTime.parse(batch.status().lastModified());
                b.setObject(8, HistoryDatabase.time(finished == null ? Instant.now() : finished));
                b.setInt(9, completed + failed);
                b.setInt(10, completed);
                b.setInt(11, failed);
                b.setObject(12, HistoryDatabase.time(Instant.now()));
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
    int purge(Instant before, int maxBatches) {
        List<String> bids = ids("SELECT batch_id FROM finished_batches WHERE finished_at < ? ORDER BY finished_at"
                + " LIMIT " + maxBatches, HistoryDatabase.time(before));
        for (String bid : bids) {
            for (List<String> jids = jobIdsOf(bid); !jids.isEmpty(); jids = jobIdsOf(bid)) {
                List<String> chunk = jids;
                db.transaction(c -> {
                    HistoryDatabase.deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", chunk);
                    HistoryDatabase.deleteIn(c, "DELETE FROM finished_local_ids WHERE job_id IN ", chunk);
                    HistoryDatabase.deleteIn(c, "DELETE FROM finished_jobs WHERE job_id IN ", chunk);
                    return null;
                });
            }
            db.transaction(c -> {
                HistoryDatabase.deleteIn(c, "DELETE FROM finished_words WHERE item_id IN ", List.of(bid));
                HistoryDatabase.deleteIn(c, "DELETE FROM finished_batches WHERE batch_id IN ", List.of(bid));
                return null;
            });
        }
        return bids.size();
    }

    /** Jobs deleted together when history forgets a batch. */
    static final int PURGE_CHUNK = 500;

    private List<String> jobIdsOf(String bid) {
        return ids("SELECT job_id FROM finished_jobs WHERE batch_id = ? ORDER BY job_id LIMIT " + PURGE_CHUNK, bid);
    }

    /** The first column of a query's rows: ids, each query limited. */
    private List<String> ids(String sql, Object param) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement(sql)) {
                s.setObject(1, param);
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

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
