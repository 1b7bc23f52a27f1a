package org.cdlib.mrt.ingestqueue.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

/**
 * While the service waits for its first ZooKeeper session, the ZooKeeper client's and Curator's
 * reconnect WARNs (one with a stack trace per try, about one a second) are held back, and the last
 * one's cause is kept: the wait's outcome is one line, naming the key and that cause. Once the
 * session is up, or the wait has given up, they pass again: a connection lost later is news to an
 * operator. The ZooKeeper server's own lines (an embedded one) always pass. A logback turbo filter,
 * installed by {@code logback.xml}.
 */
public final class FirstConnectionQuiet extends TurboFilter {
    private static final AtomicInteger WAITING = new AtomicInteger();
    private static final AtomicReference<String> LAST = new AtomicReference<>();

    /** Holds the client's reconnect lines back until {@link Waiting#close}. */
    public static Waiting waiting() {
        LAST.set(null);
        WAITING.incrementAndGet();
        return new Waiting();
    }

    /** A wait for the first session; closing it lets the client's lines pass again. */
    public static final class Waiting implements AutoCloseable {
        private boolean closed;

        private Waiting() {
        }

        /** What the last held-back line said went wrong, if one was held back. */
        public Optional<String> lastProblem() {
            return Optional.ofNullable(LAST.get());
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                WAITING.decrementAndGet();
            }
        }
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
            Throwable t) {
        if (WAITING.get() == 0 || level == null || level.isGreaterOrEqual(Level.ERROR) || !client(logger.getName())) {
            return FilterReply.NEUTRAL;
        }
        if (level.isGreaterOrEqual(Level.WARN)) {
            LAST.set(problem(format, params, t));
        }
        return FilterReply.DENY;
    }

    /** The cause a line carries (SLF4J takes a last argument that is a Throwable as the line's), else its text. */
    static String problem(String format, Object[] params, Throwable t) {
        Throwable cause = t != null ? t
                : params != null && params.length > 0 && params[params.length - 1] instanceof Throwable last ? last
                : null;
        return cause != null ? cause.getClass().getSimpleName() + ": " + cause.getMessage()
                : MessageFormatter.arrayFormat(format, params).getMessage();
    }

    /** The ZooKeeper client (not its server) and Curator. */
    static boolean client(String logger) {
        return logger.startsWith("org.apache.curator.")
                || logger.startsWith("org.apache.zookeeper.") && !logger.startsWith("org.apache.zookeeper.server.");
    }
}
