package org.cdlib.mrt.ingestqueue.services;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/**
 * The local inventory over JDBC: H2 (the single-host default) or PostgreSQL (a database all
 * hosts share, {@code ingest.inventory.local.url=jdbc:postgresql://...}): objects (ARK,
 * collection), their local ids, versions and files with digests. It is also the local-id index
 * the processing step asks, and binds in, race-free: the first binding of a local id wins (a
 * unique key), and a host that loses the race takes the winner's ARK. Connections come from a
 * small pool (HikariCP): each call is its own transaction on a connection kept open, whose
 * prepared statements the database has already parsed. Every call is shielded from its run's
 * cancel ({@link Run#shielded}): an interrupt inside H2's file read closes the database for all.
 */
public final class H2Inventory implements Inventory, LocalIds, AutoCloseable {
    /**
     * Enough for the recording and processing workers of one host; a PostgreSQL server shared by
     * hosts sees this many per host.
     */
    public static final int DEFAULT_POOL_SIZE = 8;
    private final String url;
    /**
     * H2 undoes only the failed statement of a transaction; PostgreSQL aborts the transaction
     * unless a savepoint is rolled back to.
     */
    private final boolean h2;
    private final HikariDataSource pool;
    private final Connection keepOpen;

    public H2Inventory(String jdbcUrl) throws SQLException {
        this(jdbcUrl, null, null);
    }

    public H2Inventory(String jdbcUrl, String user, String password) throws SQLException {
        this(jdbcUrl, user, password, DEFAULT_POOL_SIZE);
    }

    /** {@code user} null: H2's {@code sa}, or what a PostgreSQL URL carries. */
    public H2Inventory(String jdbcUrl, String user, String password, int poolSize) throws SQLException {
        this.url = jdbcUrl;
        this.h2 = jdbcUrl.startsWith("jdbc:h2:");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(withOsFileLock(jdbcUrl));
        config.setUsername(user != null ? user : h2 ? "sa" : null);
        config.setPassword(user != null ? password : h2 ? "" : null);
        config.setMaximumPoolSize(poolSize + 1); // one stays with keepOpen
        config.setPoolName("inventory");
        config.setInitializationFailTimeout(-1); // a database not up yet fails the first call, not the start
        this.pool = new HikariDataSource(config);
        this.keepOpen = connect(); // keeps an in-memory H2 database alive
        try (Statement s = keepOpen.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS objects (ark VARCHAR(255) PRIMARY KEY, profile VARCHAR(255) NOT NULL,"
                    + " created TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP)");
            s.execute("CREATE TABLE IF NOT EXISTS local_ids (profile VARCHAR(255) NOT NULL,"
                    + " local_id VARCHAR(1024) NOT NULL, ark VARCHAR(255) NOT NULL, PRIMARY KEY (profile, local_id))");
            s.execute("CREATE TABLE IF NOT EXISTS versions (ark VARCHAR(255) NOT NULL, version INT NOT NULL,"
                    + " recorded TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (ark, version))");
            s.execute("CREATE TABLE IF NOT EXISTS files (ark VARCHAR(255) NOT NULL, version INT NOT NULL,"
                    + " name VARCHAR(4096) NOT NULL, size BIGINT, digest_type VARCHAR(32), digest_value VARCHAR(256),"
                    + " mime_type VARCHAR(255), PRIMARY KEY (ark, version, name))");
        }
    }

    /**
     * An H2 file database locked by the operating system unless the URL chooses: H2's default
     * lock file is kept by a watchdog thread, and a host paused past its interval (SIGSTOP, a VM
     * frozen for a snapshot) came back to find its database closed under it (seen in the chaos
     * test). An OS lock lasts as long as the process does, and goes with it on kill -9.
     */
    static String withOsFileLock(String url) {
        boolean file = url.startsWith("jdbc:h2:file:") || url.startsWith("jdbc:h2:./") || url.startsWith("jdbc:h2:/");
        String upper = url.toUpperCase(Locale.ROOT);
        // AUTO_SERVER (processes sharing one file through the first one's server) needs H2's own lock file
        boolean ownLock = upper.contains(";FILE_LOCK=") || upper.contains(";AUTO_SERVER=TRUE");
        return file && !ownLock ? url + ";FILE_LOCK=FS" : url;
    }

    private Connection connect() throws SQLException {
        return pool.getConnection();
    }

    /**
     * Not synchronized: each call is its own transaction, and one object's versions are one job's
     * at a time (object lock).
     */
    @Override
    public void add(Profile profile, StoredVersion v, List<String> localIds, List<ManifestFile> files)
            throws ServiceException {
        try (Run.Shielded shield = Run.shielded(); Connection c = connect()) {
            c.setAutoCommit(false);
            try {
                insertIfAbsent(c, "INSERT INTO objects (ark, profile) VALUES (?, ?)", v.ark(), profile.id());
                for (String id : localIds) {
                    // processing bound them already: asked first, as a failed insert costs the database an exception
                    insertIfAbsent(c, "INSERT INTO local_ids (profile, local_id, ark) SELECT ?, ?, ? WHERE NOT EXISTS"
                            + " (SELECT 1 FROM local_ids WHERE profile = ? AND local_id = ?)",
                            profile.id(), id, v.ark(), profile.id(), id);
                }
                if (!insertIfAbsent(c, "INSERT INTO versions (ark, version) VALUES (?, ?)", v.ark(), v.version())) {
                    // recorded before (a lost answer): its files are replaced; a new version has none to delete
                    exec(c, "DELETE FROM files WHERE ark = ? AND version = ?", v.ark(), v.version());
                }
                try (PreparedStatement p = c.prepareStatement("INSERT INTO files (ark, version, name, size,"
                        + " digest_type, digest_value, mime_type) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                    for (ManifestFile f : files) {
                        p.setString(1, v.ark());
                        p.setInt(2, v.version());
                        p.setString(3, f.name());
                        p.setLong(4, f.size());
                        p.setString(5, f.digestType());
                        p.setString(6, f.digestValue());
                        p.setString(7, f.mimeType());
                        p.addBatch();
                    }
                    p.executeBatch();
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new ServiceException("local inventory " + url + ": cannot record " + v.ark() + " v" + v.version()
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Binds a local id of a collection to {@code ark} unless it is bound already; returns the ARK
     * it is bound to now — another one when another job, on any host, bound it first.
     */
    @Override
    public String bind(String profile, String localId, String ark) throws ServiceException {
        Optional<String> bound;
        try (Run.Shielded shield = Run.shielded(); Connection c = connect()) {
            c.setAutoCommit(false);
            insertIfAbsent(c, "INSERT INTO local_ids (profile, local_id, ark) VALUES (?, ?, ?)", profile, localId, ark);
            // this binding, or the one that made it a duplicate: committed, or the insert would still wait for it
            bound = primaryFor(c, profile, localId);
            // read before the commit: a read after it leaves a transaction open that the pool rolls back, and then
            // H2 parsed the inventory's statements again on every call (a profile of the real path showed it)
            c.commit();
        } catch (SQLException e) {
            throw new ServiceException("local inventory " + url + ": cannot bind local id " + localId + ": "
                    + e.getMessage(), e);
        }
        return bound.orElseThrow(() -> new ServiceException("local inventory " + url
                + ": local id " + localId + " bound and then not found"));
    }

    /** Inserts a row unless its key exists (H2 and PostgreSQL both answer SQLSTATE 23505 then); says whether it did. */
    private boolean insertIfAbsent(Connection c, String sql, Object... args) throws SQLException {
        Savepoint sp = h2 ? null : c.setSavepoint();
        try {
            exec(c, sql, args);
            if (sp != null) {
                c.releaseSavepoint(sp);
            }
            return true;
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
            if (sp != null) {
                c.rollback(sp); // PostgreSQL aborts the transaction on an error unless it is rolled back to here
            }
            return false;
        }
    }

    /** The ARK a local id of this collection is bound to, if any. */
    @Override
    public Optional<String> primaryFor(String profile, String localId) throws ServiceException {
        try (Run.Shielded shield = Run.shielded(); Connection c = connect()) {
            return primaryFor(c, profile, localId);
        } catch (SQLException e) {
            throw new ServiceException("local inventory " + url + ": cannot look up local id " + localId + ": "
                    + e.getMessage(), e);
        }
    }

    private static Optional<String> primaryFor(Connection c, String profile, String localId) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT ark FROM local_ids WHERE profile = ? AND local_id = ?")) {
            p.setString(1, profile);
            p.setString(2, localId);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? Optional.of(r.getString(1)) : Optional.empty();
            }
        }
    }

    /** The files of an object's latest version, for operators and tests. */
    public List<ManifestFile> files(String ark) throws SQLException {
        List<ManifestFile> out = new ArrayList<>();
        try (Run.Shielded shield = Run.shielded(); Connection c = connect();
             PreparedStatement p = c.prepareStatement("SELECT name, size, digest_type, digest_value, mime_type"
                     + " FROM files WHERE ark = ? AND version = (SELECT MAX(version) FROM versions WHERE ark = ?)"
                     + " ORDER BY name")) {
            p.setString(1, ark);
            p.setString(2, ark);
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    out.add(new ManifestFile(r.getString(1), r.getLong(2), r.getString(3), r.getString(4),
                            r.getString(5)));
                }
            }
        }
        return out;
    }

    /** The highest version recorded of the object, 0 for none: the read that resolves an add whose answer was lost. */
    @Override
    public int currentVersion(String ark) throws ServiceException {
        try (Run.Shielded shield = Run.shielded(); Connection c = connect();
             PreparedStatement p = c.prepareStatement("SELECT COALESCE(MAX(version), 0) FROM versions WHERE ark = ?")) {
            p.setString(1, ark);
            try (ResultSet r = p.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        } catch (SQLException e) {
            throw new ServiceException("local inventory " + url + ": cannot read " + ark + "'s versions: "
                    + e.getMessage(), e);
        }
    }

    public int versions(String ark) throws SQLException {
        try (Run.Shielded shield = Run.shielded(); Connection c = connect();
             PreparedStatement p = c.prepareStatement("SELECT COUNT(*) FROM versions WHERE ark = ?")) {
            p.setString(1, ark);
            try (ResultSet r = p.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    private static void exec(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                p.setObject(i + 1, args[i]);
            }
            p.executeUpdate();
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            keepOpen.close();
        } finally {
            pool.close();
        }
    }
}
