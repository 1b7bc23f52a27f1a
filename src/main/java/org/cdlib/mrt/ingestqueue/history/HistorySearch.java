package org.cdlib.mrt.ingestqueue.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * One search of history, as index lookups only: an ARK by {@code finished_jobs_ark}, a local id by
 * {@code finished_local_ids}' key, title words by {@code finished_words}' key, a submitter by
 * {@code finished_batches_submitter}, a date range by the finished-at indexes; the filters narrow
 * what those found. Jobs and batches come newest (highest id) first, each kind up to the limit;
 * {@code before} an id of one kind pages that kind alone.
 */
final class HistorySearch {
    private static final String JOB_COLUMNS = "SELECT j.job_id, j.batch_id, j.state, j.title, j.finished_at"
            + " FROM finished_jobs j";
    private static final String BATCH_COLUMNS = "SELECT b.batch_id, b.batch_id, b.state, b.title, b.finished_at"
            + " FROM finished_batches b";
    private final Connection c;
    private final HistoryQuery q;

    HistorySearch(Connection c, HistoryQuery q) {
        this.c = c;
        this.q = q;
    }

    List<HistoryHit> run() throws SQLException {
        boolean jobs = q.before() == null || q.before().startsWith("jid");
        boolean batches = q.before() == null || q.before().startsWith("bid");
        List<HistoryHit> out = new ArrayList<>();
        if (q.text() == null) {
            if (batches) {
                out.addAll(batches(new Sql(BATCH_COLUMNS + " WHERE 1 = 1"), q.submitter() != null ? "submitter"
                        : "date"));
            }
            return out;
        }
        if (q.text().regionMatches(true, 0, "ark:", 0, 4)) {
            if (jobs) {
                out.addAll(jobs(new Sql(JOB_COLUMNS + " WHERE j.ark = ?", q.text()), "ARK"));
            }
            return out;
        }
        if (jobs) {
            out.addAll(jobs(new Sql(JOB_COLUMNS + " JOIN finished_local_ids l ON l.job_id = j.job_id"
                    + " WHERE l.local_id = ?", q.text()), "local id"));
        }
        List<String> words = HistoryWrites.words(q.text());
        if (!words.isEmpty()) {
            if (jobs && out.size() < q.limit()) {
                out.addAll(jobs(inWords(new Sql(JOB_COLUMNS + " WHERE 1 = 1"), "j.job_id", words), "title"));
            }
            if (batches) {
                out.addAll(batches(inWords(new Sql(BATCH_COLUMNS + " WHERE 1 = 1"), "b.batch_id", words), "title"));
            }
        }
        return out;
    }

    private static Sql inWords(Sql sql, String column, List<String> words) {
        for (String w : words) {
            sql.and(column + " IN (SELECT item_id FROM finished_words WHERE word = ?)", w);
        }
        return sql;
    }

    private List<HistoryHit> jobs(Sql sql, String matched) throws SQLException {
        if (q.submitter() != null) {
            sql.and("j.batch_id IN (SELECT batch_id FROM finished_batches WHERE submitter = ?)", q.submitter());
        }
        filters(sql, "j");
        if (q.before() != null) {
            sql.and("j.job_id < ?", q.before());
        }
        return hits(sql.append(" ORDER BY j.job_id DESC LIMIT " + q.limit()), "job", matched);
    }

    private List<HistoryHit> batches(Sql sql, String matched) throws SQLException {
        if (q.submitter() != null) {
            sql.and("b.submitter = ?", q.submitter());
        }
        filters(sql, "b");
        if (q.before() != null) {
            sql.and("b.batch_id < ?", q.before());
        }
        return hits(sql.append(" ORDER BY b.batch_id DESC LIMIT " + q.limit()), "batch", matched);
    }

    private void filters(Sql sql, String table) {
        if (q.from() != null) {
            sql.and(table + ".finished_at >= ?", HistoryDatabase.time(q.from()));
        }
        if (q.to() != null) {
            sql.and(table + ".finished_at < ?", HistoryDatabase.time(q.to()));
        }
    }

    private List<HistoryHit> hits(Sql sql, String kind, String matched) throws SQLException {
        List<HistoryHit> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql.text.toString())) {
            for (int i = 0; i < sql.params.size(); i++) {
                s.setObject(i + 1, sql.params.get(i));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    OffsetDateTime at = r.getObject(5, OffsetDateTime.class);
                    out.add(new HistoryHit(kind, r.getString(1), r.getString(2), matched, r.getString(3),
                            r.getString(4), at == null ? null : at.toInstant().toString()));
                }
            }
        }
        return out;
    }

    /** A statement and its parameters, built up together. */
    private static final class Sql {
        final StringBuilder text;
        final List<Object> params = new ArrayList<>();

        Sql(String text, Object... params) {
            this.text = new StringBuilder(text);
            this.params.addAll(List.of(params));
        }

        Sql and(String condition, Object param) {
            text.append(" AND ").append(condition);
            params.add(param);
            return this;
        }

        Sql append(String s) {
            text.append(s);
            return this;
        }
    }
}
