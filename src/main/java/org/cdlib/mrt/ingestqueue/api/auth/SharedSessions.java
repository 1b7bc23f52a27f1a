package org.cdlib.mrt.ingestqueue.api.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.VertxContextPRNG;
import io.vertx.ext.web.Session;
import io.vertx.ext.web.sstore.AbstractSession;
import io.vertx.ext.web.sstore.SessionStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.cdlib.mrt.ingestqueue.queue.hosts.SessionNodes;
import org.cdlib.mrt.ingestqueue.queue.hosts.StoredSession;

/**
 * Vert.x Web's session store over {@link SessionNodes}: the sessions every host shares. Only a
 * logged-in session (one whose data names its user) is stored: a request that merely touched an
 * anonymous one writes nothing. A session is read on each request that carries its cookie, and
 * written when its data changed or its last use is older than {@link #writeEvery} (so the idle
 * limit holds within that), on the worker pool, never on an event loop.
 */
final class SharedSessions implements SessionStore {
    static final String USER = "user";
    private final SessionNodes nodes;
    private final long writeEvery;
    private Vertx vertx;
    private VertxContextPRNG random;

    /** A session and what its node held when this host last read or wrote it (null: not stored under its id). */
    static final class NodeSession extends AbstractSession {
        private StoredSession stored;

        NodeSession(VertxContextPRNG random, long timeout, int length) {
            super(random, timeout, length);
        }

        NodeSession(VertxContextPRNG random, StoredSession s) {
            super(random);
            setId(s.id());
            setTimeout(s.idle());
            setLastAccessed(s.used());
            setData(new ConcurrentHashMap<>(s.data()));
            stored = s;
        }
    }

    SharedSessions(SessionNodes nodes, Duration idle) {
        this.nodes = nodes;
        this.writeEvery = Math.max(1, Math.min(Duration.ofMinutes(1).toMillis(), idle.toMillis() / 4));
    }

    @Override
    public SessionStore init(Vertx vertx, JsonObject options) {
        this.vertx = vertx;
        this.random = VertxContextPRNG.current(vertx);
        return this;
    }

    /** Never retried: a session another host just stored is in ZooKeeper already when its login answers. */
    @Override
    public long retryTimeout() {
        return 0;
    }

    @Override
    public Session createSession(long timeout) {
        return createSession(timeout, DEFAULT_SESSIONID_LENGTH);
    }

    @Override
    public Session createSession(long timeout, int length) {
        return new NodeSession(random, timeout, length);
    }

    @Override
    public Future<Session> get(String cookieValue) {
        if (!SessionNodes.isId(cookieValue)) {
            return Future.succeededFuture();
        }
        return vertx.executeBlocking(() -> nodes.find(cookieValue).map(s -> (Session) new NodeSession(random,
                s)).orElse(null), false);
    }

    @Override
    public Future<Void> delete(String id) {
        return vertx.executeBlocking(() -> {
            nodes.delete(id);
            return null;
        }, false);
    }

    @Override
    public Future<Void> put(Session session) {
        NodeSession s = (NodeSession) session;
        Map<String, String> data = new LinkedHashMap<>();
        if (!s.isEmpty()) {
            s.data().forEach((k, v) -> {
                if (v instanceof String text) {
                    data.put(k, text);
                }
            });
        }
        String user = data.get(USER);
        if (user == null) {
            return Future.succeededFuture();
        }
        return vertx.executeBlocking(() -> {
            if (s.stored == null || !s.stored.id().equals(s.id())) {
                s.stored = nodes.create(s.id(), user, data, s.timeout());
            } else {
                StoredSession written = nodes.write(s.stored, data, writeEvery);
                s.stored = written == null ? s.stored : written;
            }
            return null;
        }, false);
    }

    /** Sessions end one by one (logout, idle): none are cleared all at once. */
    @Override
    public Future<Void> clear() {
        return Future.failedFuture("dashboard sessions end one by one (logout, or idle for ingest.api.session-idle)");
    }

    @Override
    public Future<Integer> size() {
        return vertx.executeBlocking(nodes::count, false);
    }

    @Override
    public void close() {
        // nothing held: the nodes stay for the other hosts
    }
}
