package org.cdlib.mrt.ingestqueue.fetch;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hc.core5.concurrent.Cancellable;

/**
 * Once the service begins to stop, no request to a payload server is written that was not being
 * written already: a request waiting for a pooled connection is cancelled (which ends the wait),
 * one that gets its connection after the stop began is refused just before its first byte, a
 * retry waiting out its backoff is not sent, and a new one is refused at once. A transfer under
 * way goes on: its step may still reach its transition within the shutdown timeout.
 * <p>
 * One gate serves both of a {@link Fetcher}'s connection pools; the look at the gate and the
 * first byte's permission are taken under one monitor, so a request is either sent or refused,
 * never cancelled half-written.
 */
final class StopGate {
    /** The attribute of an exchange's context that carries its {@link Ticket}. */
    static final String TICKET = "ingest.fetch.ticket";

    /** Requests not yet writing, each cancelled when the stop begins. */
    private final Set<Ticket> waiting = new HashSet<>();
    private boolean stopping;

    /** One request's passage: waiting for its connection, then sent or refused. */
    static final class Ticket {
        private final Cancellable request;
        private boolean sent;
        private boolean refused;

        private Ticket(Cancellable request) {
            this.request = request;
        }
    }

    /** A request about to be executed; refused already when the stop began. */
    synchronized Ticket enter(Cancellable request) {
        Ticket t = new Ticket(request);
        if (stopping) {
            t.refused = true;
        } else {
            waiting.add(t);
        }
        return t;
    }

    /**
     * The request's connection is leased and open, its first byte next: refused (and the
     * connection dropped by HttpClient) when the stop began meanwhile.
     */
    synchronized void send(Ticket t) throws InterruptedIOException {
        waiting.remove(t);
        if (stopping || t.refused) {
            t.refused = true;
            throw new InterruptedIOException("not sent: the service is stopping");
        }
        t.sent = true;
    }

    /** The exchange is over (answered or failed): nothing to cancel any more. */
    synchronized void leave(Ticket t) {
        waiting.remove(t);
    }

    /** Whether the gate kept this request from being sent (so its failure is the stop's, not the server's). */
    synchronized boolean refused(Ticket t) {
        return t.refused && !t.sent;
    }

    synchronized boolean stopping() {
        return stopping;
    }

    /** The stop begins: every request still waiting for its connection is cancelled, none is sent from now. */
    void stop() {
        List<Ticket> cancel;
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
            cancel = new ArrayList<>(waiting);
            waiting.clear();
            cancel.forEach(t -> t.refused = true);
            notifyAll(); // a retry's backoff ends now
        }
        cancel.forEach(t -> t.request.cancel());
    }

    /** Waits out a retry's backoff; false when the stop began (the retry is not sent). */
    synchronized boolean pause(Duration d) throws InterruptedException {
        long end = System.nanoTime() + d.toNanos();
        for (long left = d.toNanos(); !stopping && left > 0; left = end - System.nanoTime()) {
            wait(Math.max(1, left / 1_000_000));
        }
        return !stopping;
    }
}
