package org.cdlib.mrt.ingestqueue.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
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
                out.addAll(jobs(byWords(JOB_COLUMNS, "j.job_id", "jid", words), "title"));
            }
            if (batches) {
                out.addAll(batches(byWords(BATCH_COLUMNS, "b.batch_id", "bid", words), "title"));
            }
        }
        return out;
    }

    /**
     * Items whose title has every word, read from the words' key: the longest word (likely the
     * rarest) drives, its key walked from the newest id down, and the query stops at the limit; each
     * other word is one key lookup per item walked. The id range keeps jobs and batches apart inside
     * the key. A common word never collects every item that has it before the newest are taken.
     */
    private static Sql byWords(String columns, String idColumn, String prefix, List<String> words) {
        String driver = words.stream().max(Comparator.comparingInt(String::length)).orElseThrow();
        Sql sql = new Sql(columns + " JOIN finished_words w ON w.item_id = " + idColumn
                + " WHERE w.word = ? AND w.item_id >= ? AND w.item_id < ?", driver, prefix, after(prefix));
        for (String word : words) {
            if (!word.equals(driver)) {
                sql.and("EXISTS (SELECT 1 FROM finished_words o WHERE o.word = ? AND o.item_id = w.item_id)", word);
            }
        }
        sql.orderBy = "w.item_id";
        return sql;
    }

    /** The first string past every id of this prefix in any collation ("jid" → "jie"): no punctuation. */
    private static String after(String prefix) {
        return prefix.substring(0, prefix.length() - 1) + (char) (prefix.charAt(prefix.length() - 1) + 1);
    }

    private List<HistoryHit> jobs(Sql sql, String matched) throws SQLException {
        if (q.submitter() != null) {
            sql.and("j.batch_id IN (SELECT batch_id FROM finished_batches WHERE submitter = ?)", q.submitter());
        }
        filters(sql, "j");
        if (q.before() != null) {
            sql.and("j.job_id < ?", q.before());
        }
        return hits(sql.append(" ORDER BY " + sql.orderBy("j.job_id") + " DESC LIMIT " + q.limit()), "job", matched);
    }

    private List<HistoryHit> batches(Sql sql, String matched) throws SQLException {
        if (q.submitter() != null) {
            sql.and("b.submitter = ?", q.submitter());
        }
        filters(sql, "b");
        if (q.before() != null) {
            sql.and("b.batch_id < ?", q.before());
        }
        return hits(sql.append(" ORDER BY " + sql.orderBy("b.batch_id") + " DESC LIMIT " + q.limit()), "batch",
                matched);
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
        /** The column the newest-first order reads, when not the item's own id (a key the query walks). */
        String orderBy;

        Sql(String text, Object... params) {
            this.text = new StringBuilder(text);
            this.params.addAll(List.of(params));
        }

        Sql and(String condition, Object param) {
            text.append(" AND ").append(condition);
            params.add(param);
            return this;
        }

        String orderBy(String id) {
            return orderBy == null ? id : orderBy;
        }

        Sql append(String s) {
            text.append(s);
            return this;
        }
    }
}
