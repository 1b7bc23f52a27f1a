package org.cdlib.mrt.ingestqueue.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The index of the work ZooKeeper holds (issue 45), beside history in its database: each open
 * batch's and job's ARK, local ids and title words, so a search finds any of them in one request,
 * however many batches the queue holds. A cache: {@link OpenIndexPass} fills it from the queue's
 * nodes, and search checks each hit in ZooKeeper before showing it. Writes replace, as history's.
 */
public final class OpenIndex {
    /** Rows deleted together when a batch is forgotten. */
    static final int FORGET_CHUNK = 500;
    private final HistoryDatabase db;

    OpenIndex(HistoryDatabase db) {
        this.db = db;
    }

    /** What search looks up of one open batch or job; {@code batchId} is the batch's own id for a batch. */
    public record Entry(String itemId, String batchId, String ark, String title, List<String> localIds) {
    }

    /** A batch seen open: how many of its jobs (in the batch's order) are indexed, and whether that is all. */
    public record Progress(String batchId, int indexed, boolean whole) {
    }

    /** The entries, replacing what the index held of them, and the batch's progress, in one transaction. */
    public void put(List<Entry> entries, Progress progress) {
        List<String> ids = entries.stream().map(Entry::itemId).toList();
        db.transaction(c -> {
            if (!ids.isEmpty()) {
                HistoryDatabase.deleteIn(c, "DELETE FROM open_words WHERE item_id IN ", ids);
                HistoryDatabase.deleteIn(c, "DELETE FROM open_local_ids WHERE item_id IN ", ids);
                HistoryDatabase.deleteIn(c, "DELETE FROM open_items WHERE item_id IN ", ids);
            }
            try (PreparedStatement item = c.prepareStatement(
                    "INSERT INTO open_items (item_id, batch_id, ark, title) VALUES (?, ?, ?, ?)");
                 PreparedStatement local = c.prepareStatement(
                         "INSERT INTO open_local_ids (local_id, item_id) VALUES (?, ?)");
                 PreparedStatement word = c.prepareStatement(
                         "INSERT INTO open_words (word, item_id) VALUES (?, ?)")) {
                for (Entry e : entries) {
                    item.setString(1, e.itemId());
                    item.setString(2, e.batchId());
                    item.setString(3, cut(e.ark(), 255));
                    item.setString(4, cut(e.title(), 1024));
                    item.addBatch();
                    for (String l : e.localIds().stream().distinct().toList()) {
                        if (l != null && !l.isBlank() && l.length() <= 1024) {
                            local.setString(1, l);
                            local.setString(2, e.itemId());
                            local.addBatch();
                        }
                    }
                    for (String w : HistoryWrites.words(e.title())) {
                        word.setString(1, w);
                        word.setString(2, e.itemId());
                        word.addBatch();
                    }
                }
                item.executeBatch();
                local.executeBatch();
                word.executeBatch();
            }
            if (progress != null) {
                HistoryDatabase.deleteIn(c, "DELETE FROM open_batches WHERE batch_id IN ",
                        List.of(progress.batchId()));
                try (PreparedStatement s = c.prepareStatement(
                        "INSERT INTO open_batches (batch_id, indexed, whole, checked_at) VALUES (?, ?, ?, ?)")) {
                    s.setString(1, progress.batchId());
                    s.setInt(2, progress.indexed());
                    s.setBoolean(3, progress.whole());
                    s.setObject(4, HistoryDatabase.time(Instant.now()));
                    s.executeUpdate();
                }
            }
            return null;
        });
    }

    /** A job's ARK, once minted (its row kept otherwise). */
    public void ark(String jid, String ark) {
        db.query(c -> {
            try (PreparedStatement s = c.prepareStatement("UPDATE open_items SET ark = ? WHERE item_id = ?")) {
                s.setString(1, cut(ark, 255));
                s.setString(2, jid);
                return s.executeUpdate();
            }
        });
    }

    /**
     * Forgets a batch and its jobs (the work is in history, or gone), a chunk per transaction, the batch's mark last.
     */
    public void forget(String bid) {
        for (List<String> ids = ids("SELECT item_id FROM open_items WHERE batch_id = ? ORDER BY item_id LIMIT "
                + FORGET_CHUNK, bid); !ids.isEmpty(); ids = ids("SELECT item_id FROM open_items WHERE batch_id = ?"
                + " ORDER BY item_id LIMIT " + FORGET_CHUNK, bid)) {
            List<String> chunk = ids;
            db.transaction(c -> {
                HistoryDatabase.deleteIn(c, "DELETE FROM open_words WHERE item_id IN ", chunk);
                HistoryDatabase.deleteIn(c, "DELETE FROM open_local_ids WHERE item_id IN ", chunk);
                HistoryDatabase.deleteIn(c, "DELETE FROM open_items WHERE item_id IN ", chunk);
                return null;
            });
        }
        db.transaction(c -> {
            HistoryDatabase.deleteIn(c, "DELETE FROM open_batches WHERE batch_id IN ", List.of(bid));
            return null;
        });
    }

    /** Batches to look at again, the least lately looked at first: those not indexed whole, or (whole) all. */
    public List<Progress> toLookAt(boolean whole, int limit) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT batch_id, indexed, whole FROM open_batches"
                    + " WHERE whole = ? ORDER BY checked_at LIMIT " + limit)) {
                s.setBoolean(1, whole);
                return progress(s);
            }
        });
    }

    /** Marks a batch as looked at now (nothing else changed). */
    public void lookedAt(String bid) {
        db.query(c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "UPDATE open_batches SET checked_at = ? WHERE batch_id = ?")) {
                s.setObject(1, HistoryDatabase.time(Instant.now()));
                s.setString(2, bid);
                return s.executeUpdate();
            }
        });
    }

    /** Of these batches, those the index has seen (asked a hundred at a time). */
    public Set<String> seen(Collection<String> bids) {
        List<String> all = List.copyOf(bids);
        Set<String> out = new HashSet<>();
        for (int from = 0; from < all.size(); from += 100) {
            out.addAll(seen(all.subList(from, Math.min(all.size(), from + 100))));
        }
        return out;
    }

    private Set<String> seen(List<String> ids) {
        return db.query(c -> HistoryDatabase.selectIn(c, "SELECT batch_id FROM open_batches WHERE batch_id IN ", ids));
    }

    /**
     * Open work by an ARK, a local id (each exact) or title words (all in the title), newest first,
     * up to {@code limit}: index lookups only, like history's search.
     */
    public List<HistoryHit> search(String text, int limit) {
        return db.query(c -> {
            List<HistoryHit> out = new ArrayList<>();
            if (text.regionMatches(true, 0, "ark:", 0, 4)) {
                hits(c, "SELECT i.item_id, i.batch_id, i.title FROM open_items i WHERE i.ark = ?"
                        + " ORDER BY i.item_id DESC LIMIT " + limit, List.of(text), "ARK", out);
                return out;
            }
            hits(c, "SELECT i.item_id, i.batch_id, i.title FROM open_items i JOIN open_local_ids l"
                    + " ON l.item_id = i.item_id WHERE l.local_id = ? ORDER BY i.item_id DESC LIMIT " + limit,
                    List.of(text), "local id", out);
            List<String> words = HistoryWrites.words(text);
            if (!words.isEmpty()) {
                // whole words first; then each word beginning a word of the title (open work is searched as
                // it is typed; its rows are bounded by the open-jobs cap, where history's ten million match
                // whole words only)
                titled(c, words, "", limit, out);
                titled(c, words, "%", limit, out);
            }
            return out;
        });
    }

    /** Items whose title has every word ({@code suffix} "%": a word beginning so), the longest word driving. */
    private static void titled(Connection c, List<String> words, String suffix, int limit, List<HistoryHit> out)
            throws SQLException {
        if (out.size() >= limit) {
            return;
        }
        // the rarest word drives (counted on the words' key): "letter" in every title must not be walked
        // to find the one "1917"; a word nobody has ends the search
        String driver = null;
        long fewest = Long.MAX_VALUE;
        for (String word : words) {
            long n = count(c, word + suffix);
            if (n < fewest) {
                fewest = n;
                driver = word;
            }
        }
        if (fewest == 0) {
            return;
        }
        StringBuilder sql = new StringBuilder("SELECT DISTINCT i.item_id, i.batch_id, i.title FROM open_words w"
                + " JOIN open_items i ON i.item_id = w.item_id WHERE w.word LIKE ?");
        List<Object> params = new ArrayList<>(List.of(driver + suffix));
        for (String word : words) {
            if (!word.equals(driver)) {
                sql.append(" AND EXISTS (SELECT 1 FROM open_words o WHERE o.word LIKE ? AND o.item_id = w.item_id)");
                params.add(word + suffix);
            }
        }
        // room for what is found again (a whole word begins itself)
        sql.append(" ORDER BY i.item_id DESC LIMIT ").append(limit);
        List<HistoryHit> found = new ArrayList<>();
        hits(c, sql.toString(), params, "title", found);
        for (HistoryHit h : found) {
            if (out.size() < limit && out.stream().noneMatch(o -> o.id().equals(h.id()))) {
                out.add(h);
            }
        }
    }

    /** How many rows of the words' key match (a word, or with "%" the words beginning so); an index range count. */
    private static long count(Connection c, String pattern) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM open_words WHERE word LIKE ?")) {
            s.setString(1, pattern);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getLong(1) : 0;
            }
        }
    }

    private static void hits(Connection c, String sql, List<?> params, String matched, List<HistoryHit> out)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.size(); i++) {
                s.setObject(i + 1, params.get(i));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String id = r.getString(1);
                    if (out.stream().noneMatch(h -> h.id().equals(id))) {
                        out.add(new HistoryHit(id.startsWith("bid") ? "batch" : "job", id, r.getString(2), matched,
                                null, r.getString(3), null));
                    }
                }
            }
        }
    }

    private List<Progress> progress(PreparedStatement s) throws SQLException {
        List<Progress> out = new ArrayList<>();
        try (ResultSet r = s.executeQuery()) {
            while (r.next()) {
                out.add(new Progress(r.getString(1), r.getInt(2), r.getBoolean(3)));
            }
        }
        return out;
    }

    private List<String> ids(String sql, String param) {
        return db.query(c -> {
            try (PreparedStatement s = c.prepareStatement(sql)) {
                s.setString(1, param);
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

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
