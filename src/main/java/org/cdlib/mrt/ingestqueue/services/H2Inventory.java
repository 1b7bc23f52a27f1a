package org.cdlib.mrt.ingestqueue.services;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/**
 * The embedded default inventory, in an H2 database: objects (ARK, collection), their local
 * ids, versions and files with digests — "which objects, which files, which digests". It is
 * also the index the processing step asks whether a local id is already bound to an ARK.
 */
public final class H2Inventory implements Inventory, AutoCloseable {
    private final String url;
    private final Connection keepOpen;

    public H2Inventory(String jdbcUrl) throws SQLException {
        this.url = jdbcUrl;
        this.keepOpen = DriverManager.getConnection(jdbcUrl, "sa", "");
        try (Statement s = keepOpen.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS objects (ark VARCHAR(255) PRIMARY KEY, profile VARCHAR(255) NOT NULL,"
                    + " created TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP)");
            s.execute("CREATE TABLE IF NOT EXISTS local_ids (profile VARCHAR(255) NOT NULL, local_id VARCHAR(1024) NOT NULL,"
                    + " ark VARCHAR(255) NOT NULL, PRIMARY KEY (profile, local_id))");
            s.execute("CREATE TABLE IF NOT EXISTS versions (ark VARCHAR(255) NOT NULL, version INT NOT NULL,"
                    + " recorded TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (ark, version))");
            s.execute("CREATE TABLE IF NOT EXISTS files (ark VARCHAR(255) NOT NULL, version INT NOT NULL,"
                    + " name VARCHAR(4096) NOT NULL, size BIGINT, digest_type VARCHAR(32), digest_value VARCHAR(256),"
                    + " mime_type VARCHAR(255), PRIMARY KEY (ark, version, name))");
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    @Override
    public synchronized void add(Profile profile, StoredVersion v, List<String> localIds, List<ManifestFile> files)
            throws ServiceException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try {
                exec(c, "MERGE INTO objects (ark, profile) KEY (ark) VALUES (?, ?)", v.ark(), profile.id());
                for (String id : localIds) {
                    exec(c, "MERGE INTO local_ids (profile, local_id, ark) KEY (profile, local_id) VALUES (?, ?, ?)",
                            profile.id(), id, v.ark());
                }
                exec(c, "MERGE INTO versions (ark, version) KEY (ark, version) VALUES (?, ?)", v.ark(), v.version());
                exec(c, "DELETE FROM files WHERE ark = ? AND version = ?", v.ark(), v.version());
                try (PreparedStatement p = c.prepareStatement("INSERT INTO files (ark, version, name, size, digest_type,"
                        + " digest_value, mime_type) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
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

    /** The ARK a local id of this collection is bound to, if any. */
    public Optional<String> primaryFor(String profile, String localId) throws ServiceException {
        try (Connection c = connect(); PreparedStatement p = c.prepareStatement(
                "SELECT ark FROM local_ids WHERE profile = ? AND local_id = ?")) {
            p.setString(1, profile);
            p.setString(2, localId);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? Optional.of(r.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new ServiceException("local inventory " + url + ": cannot look up local id " + localId + ": " + e.getMessage(), e);
        }
    }

    /** The files of an object's latest version, for operators and tests. */
    public List<ManifestFile> files(String ark) throws SQLException {
        List<ManifestFile> out = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement p = c.prepareStatement("SELECT name, size, digest_type, digest_value,"
                + " mime_type FROM files WHERE ark = ? AND version = (SELECT MAX(version) FROM versions WHERE ark = ?)"
                + " ORDER BY name")) {
            p.setString(1, ark);
            p.setString(2, ark);
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    out.add(new ManifestFile(r.getString(1), r.getLong(2), r.getString(3), r.getString(4), r.getString(5)));
                }
            }
        }
        return out;
    }

    public int versions(String ark) throws SQLException {
        try (Connection c = connect(); PreparedStatement p = c.prepareStatement("SELECT COUNT(*) FROM versions WHERE ark = ?")) {
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
        keepOpen.close();
    }
}
