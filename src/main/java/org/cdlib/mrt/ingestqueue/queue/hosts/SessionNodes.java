package org.cdlib.mrt.ingestqueue.queue.hosts;

import static org.cdlib.mrt.ingestqueue.queue.model.QueuePaths.SESSIONS;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;
import org.cdlib.mrt.ingestqueue.queue.errors.NotFoundException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.cdlib.mrt.ingestqueue.queue.zk.MultiCommit;
import org.cdlib.mrt.ingestqueue.queue.zk.ZooKeeperCalls;

/**
 * The dashboard's logged-in sessions, shared by every host, so that a dashboard behind a load
 * balancer keeps its session on any host and a logout on one ends it on all. One small node a
 * session, {@code /sessions/ids/<first hex digit>/<id>} (its user, its data as strings, when it
 * was last used, its idle limit), and a per-user index {@code /sessions/users/<sha-256 of the name>}
 * of at most {@link #MAX_PER_USER} ids: a login past it ends that user's least recently used
 * session in the same transaction. At most {@link #MAX_SESSIONS} in all: past it a login is
 * refused rather than anyone's session ended. Sessions past their idle limit are gone to
 * {@link #find} at once and deleted by {@link #sweep}, one of the {@link #BUCKETS} folders a call
 * (the folders keep each listing small).
 */
public final class SessionNodes {
    static final String IDS = SESSIONS + "/ids";
    static final String USERS = SESSIONS + "/users";
    static final String SECRET = SESSIONS + "/secret";
    /** A session node, a user's index (20 ids of 64 hex digits) and the secret each fit in this. */
    public static final int MAX_PER_USER = 20;
    public static final int MAX_SESSIONS = 10_000;
    static final int BUCKETS = 16;
    private static final Pattern ID = Pattern.compile("[0-9a-f]{32,128}");
    private static final int ATTEMPTS = 5;

    private record Node(String user, Map<String, String> data, long used, long idle) {
    }

    private final ZooKeeperCalls zk;
    private final Clock clock;
    private final AtomicInteger nextBucket = new AtomicInteger();
    private volatile boolean folders;

    public SessionNodes(CuratorFramework client, Clock clock) {
        this.zk = new ZooKeeperCalls(client);
        this.clock = clock;
    }

    /** Whether {@code id} has a session id's form (checked before any path is built from a cookie). */
    public static boolean isId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    static String path(String id) {
        return IDS + "/" + id.charAt(0) + "/" + id;
    }

    static String userPath(String user) {
        try {
            return USERS + "/"
                    + HexFormat.of()
                            .formatHex(
                                    MessageDigest.getInstance("SHA-256").digest(user.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The session {@code id}, unless it is missing, damaged or idle too long (then it is deleted). */
    public Optional<StoredSession> find(String id) {
        if (!isId(id)) {
            return Optional.empty();
        }
        Optional<StoredSession> s = read(id);
        if (s.isPresent() && s.get().expiredAt(clock.millis())) {
            remove(id, s.get().version());
            return Optional.empty();
        }
        return s;
    }

    private Optional<StoredSession> read(String id) {
        Stat st = new Stat();
        try {
            Node n = QueueJson.read(path(id), zk.read(path(id), st), Node.class);
            return n.user() == null
                    ? Optional.empty()
                    : Optional.of(new StoredSession(
                            id, n.user(), n.data() == null ? Map.of() : n.data(), n.used(), n.idle(), st.getVersion()));
        } catch (NotFoundException | CorruptNodeException e) {
            return Optional.empty();
        }
    }

    /**
     * Stores a new session of {@code user}; the user's least recently used ones go beyond
     * {@link #MAX_PER_USER}. Throws {@link FullException} when {@link #MAX_SESSIONS} are in use.
     */
    public StoredSession create(String id, String user, Map<String, String> data, long idleMillis) {
        if (!isId(id)) {
            throw new IllegalArgumentException("not a session id");
        }
        makeFolders();
        for (int attempt = 1; ; attempt++) {
            if (count() >= MAX_SESSIONS) {
                throw new SessionsFullException(MAX_SESSIONS);
            }
            long now = clock.millis();
            Stat index = new Stat();
            List<String> ids = new ArrayList<>(userIds(user, index));
            List<Op> ops = new ArrayList<>();
            ops.add(ZooKeeperCalls.create(path(id), QueueJson.write(new Node(user, data, now, idleMillis))));
            for (String old : leastRecentlyUsed(ids, ids.size() + 1 - MAX_PER_USER)) {
                ids.remove(old);
                ops.add(Op.delete(path(old), -1));
            }
            ids.add(id);
            byte[] list = QueueJson.write(Map.of("ids", ids));
            ops.add(
                    index.getVersion() < 0
                            ? ZooKeeperCalls.create(userPath(user), list)
                            : ZooKeeperCalls.setData(userPath(user), list, index.getVersion()));
            if (commit(ops, () -> zk.exists(path(id)), attempt)) {
                return new StoredSession(id, user, data, now, idleMillis, 0);
            }
        }
    }

    /**
     * Writes the session's {@code data} and its last use, unless the data is unchanged and the
     * last use was written less than {@code writeEvery} ms ago (a session is read on every
     * request; its use is written at most that often). Never re-creates an ended session: null
     * then. When another request changed the data meanwhile, that request's data stays.
     */
    public StoredSession write(StoredSession s, Map<String, String> data, long writeEvery) {
        long now = clock.millis();
        if (data.equals(s.data()) && now - s.used() < writeEvery) {
            return s;
        }
        StoredSession at = s;
        for (int attempt = 1; attempt <= 2; attempt++) {
            int version = at.version();
            try {
                zk.commit(
                        zk.currentHandle(),
                        List.of(ZooKeeperCalls.setData(
                                path(s.id()), QueueJson.write(new Node(s.user(), data, now, s.idle())), version)),
                        () -> versionIs(path(s.id()), version + 1));
                return new StoredSession(s.id(), s.user(), data, now, s.idle(), version + 1);
            } catch (KeeperException e) {
                if (e.code() != KeeperException.Code.BADVERSION) {
                    return null; // ended meanwhile (or refused): not brought back
                }
                at = read(s.id()).orElse(null);
                if (at == null || !at.data().equals(s.data())) {
                    return at;
                }
            }
        }
        return at;
    }

    /** Ends the session {@code id} (a logout): its node and its place in its user's index. */
    public void delete(String id) {
        if (isId(id)) {
            remove(id, -1);
        }
    }

    /** Deletes the sessions idle too long in the next of the {@link #BUCKETS} folders; how many. */
    public int sweep() {
        String bucket = IDS + "/" + Integer.toHexString(Math.floorMod(nextBucket.getAndIncrement(), BUCKETS));
        List<String> paths = zk.children(bucket).stream().filter(SessionNodes::isId).map(SessionNodes::path).toList();
        Map<String, OpResult> r = zk.readMany(paths);
        long now = clock.millis();
        int deleted = 0;
        for (String p : paths) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(p));
            JsonNode j = d == null ? null : QueueJson.treeOrNull(d.getData());
            boolean damaged = d != null && (j == null || !j.path("used").isNumber());
            if (damaged || j != null && j.path("used").asLong() + j.path("idle").asLong() < now) {
                deleted += remove(p.substring(p.lastIndexOf('/') + 1), damaged ? -1 : d.getStat().getVersion()) ? 1 : 0;
            }
        }
        return deleted;
    }

    /** How many sessions are stored (the child counts of the folders, one read). */
    public int count() {
        List<String> buckets = new ArrayList<>();
        for (int b = 0; b < BUCKETS; b++) {
            buckets.add(IDS + "/" + Integer.toHexString(b));
        }
        int n = 0;
        for (OpResult r : zk.readMany(buckets).values()) {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r);
            n += d == null ? 0 : d.getStat().getNumChildren();
        }
        return n;
    }

    /** A secret every host shares (the first to ask makes it): sessions are no safer than ZooKeeper anyway. */
    public byte[] secret() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        zk.createPersistent(SECRET, Base64.getEncoder().encode(b));
        return Base64.getDecoder().decode(zk.readOrNull(SECRET));
    }

    /** Deletes a session node (at {@code version}, or any: -1) and its id from its user's index; whether it did. */
    private boolean remove(String id, int version) {
        for (int attempt = 1; ; attempt++) {
            Stat st = new Stat();
            byte[] data;
            try {
                data = zk.read(path(id), st);
            } catch (NotFoundException e) {
                return false;
            }
            if (version >= 0 && st.getVersion() != version) {
                return false; // used meanwhile
            }
            List<Op> ops = new ArrayList<>(List.of(Op.delete(path(id), st.getVersion())));
            JsonNode j = QueueJson.treeOrNull(data);
            String user = j == null ? null : QueueJson.textOrNull(j, "user");
            if (user != null) {
                Stat index = new Stat();
                List<String> ids = new ArrayList<>(userIds(user, index));
                if (ids.remove(id)) {
                    ops.add(
                            ids.isEmpty()
                                    ? Op.delete(userPath(user), index.getVersion())
                                    : ZooKeeperCalls.setData(
                                            userPath(user), QueueJson.write(Map.of("ids", ids)), index.getVersion()));
                }
            }
            if (commit(ops, () -> !zk.exists(path(id)), attempt)) {
                return true;
            }
        }
    }

    /** A user's session ids; {@code index}'s version stays -1 when the user has none. */
    private List<String> userIds(String user, Stat index) {
        index.setVersion(-1);
        try {
            JsonNode j = QueueJson.treeOrNull(zk.read(userPath(user), index));
            List<String> ids = new ArrayList<>();
            if (j != null) {
                j.path("ids").forEach(i -> {
                    if (isId(i.asText()) && ids.size() < MAX_PER_USER) {
                        ids.add(i.asText());
                    }
                });
            }
            return ids;
        } catch (NotFoundException e) {
            index.setVersion(-1);
            return List.of();
        }
    }

    /** The {@code n} of {@code ids} used least recently (missing ones first: they go from the index). */
    private List<String> leastRecentlyUsed(List<String> ids, int n) {
        if (n <= 0) {
            return List.of();
        }
        Map<String, OpResult> r = zk.readMany(ids.stream().map(SessionNodes::path).toList());
        return ids.stream().sorted(Comparator.comparingLong(id -> {
            OpResult.GetDataResult d = ZooKeeperCalls.dataOf(r.get(path(id)));
            JsonNode j = d == null ? null : QueueJson.treeOrNull(d.getData());
            return j == null ? Long.MIN_VALUE : j.path("used").asLong();
        })).limit(n).toList();
    }

    /** Commits; false when another host moved first (the caller reads again), within {@link #ATTEMPTS}. */
    private boolean commit(List<Op> ops, MultiCommit.AppliedCheck applied, int attempt) {
        try {
            zk.commit(zk.currentHandle(), ops, applied);
            return true;
        } catch (KeeperException e) {
            boolean raced = e.code() == KeeperException.Code.BADVERSION || e.code() == KeeperException.Code.NODEEXISTS
                    || e.code() == KeeperException.Code.NONODE;
            if (raced && attempt < ATTEMPTS) {
                return false;
            }
            throw new QueueException("sessions: " + e.code() + " at " + e.getPath() + "; nothing was written", e);
        }
    }

    private boolean versionIs(String path, int version) {
        Stat st = zk.stat(path);
        return st != null && st.getVersion() == version;
    }

    private void makeFolders() {
        if (!folders) {
            for (int b = 0; b < BUCKETS; b++) {
                zk.createPersistent(IDS + "/" + Integer.toHexString(b), ZooKeeperCalls.EMPTY);
            }
            zk.createPersistent(USERS, ZooKeeperCalls.EMPTY);
            folders = true;
        }
    }
}
