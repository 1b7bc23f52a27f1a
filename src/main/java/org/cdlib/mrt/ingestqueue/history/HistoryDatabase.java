package org.cdlib.mrt.ingestqueue.history;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.flywaydb.core.Flyway;

/**
 * History's database connection: the pool (HikariCP), Flyway's migration on the first call that
 * reaches the database, and every call made through {@link #query} or {@link #transaction}, which
 * turn a database that cannot be reached into a {@link HistoryUnavailableException} and keep
 * {@link HistoryStatus} true.
 */
final class HistoryDatabase implements AutoCloseable {
    private final HikariDataSource pool;
    private final String url;
    private final HistoryStatus status = new HistoryStatus();
    private volatile boolean migrated;

    /** {@code user} null: H2's {@code sa}, or what a PostgreSQL URL carries. */
    HistoryDatabase(String url, String user, String password) {
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

    /**
     * One transaction; run again (up to three times) when it lost a race with another host writing
     * the same rows (a unique key taken meanwhile, a deadlock, a serialization failure): the write
     * replaces, so the last one to commit leaves the same rows.
     */
    <T> T transaction(Work<T> work) {
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
    <T> T query(Work<T> work) {
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

    static void deleteIn(Connection c, String sql, List<String> ids) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql + "(" + String.join(", ",
                Collections.nCopies(ids.size(), "?")) + ")")) {
            for (int i = 0; i < ids.size(); i++) {
                s.setString(i + 1, ids.get(i));
            }
            s.executeUpdate();
        }
    }

    /** The first column of {@code sql}'s rows, its last parameter list the ids (as many as given). */
    static Set<String> selectIn(Connection c, String sql, List<String> ids) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql + "(" + String.join(", ",
                Collections.nCopies(ids.size(), "?")) + ")")) {
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
    }

    static OffsetDateTime time(Instant at) {
        return at == null ? null : at.atOffset(ZoneOffset.UTC);
    }

    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    @Override
    public void close() {
        pool.close();
    }
}
