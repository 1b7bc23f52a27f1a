package org.cdlib.mrt.ingestqueue.services;

import java.io.InterruptedIOException;
import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.cdlib.mrt.ingestqueue.queue.model.LeaseLapsedException;

/**
 * The last moment a fenced call may be sent. A step's fence ({@code verifyHeldUntil}) checks
 * that this worker still holds its job and arms the deadline until which that answer holds;
 * HttpClient checks it on the calling thread just before it writes the request (after the
 * connection is leased and open), so the window in which a host paused past its session (SIGSTOP,
 * a stalled VM) can still send after another host took the job shrinks from a ZooKeeper round
 * trip and a connection set-up to a clock read. The deadline is used once: a call the fence did
 * not arm is not checked. Seen in the chaos test: a storage add sent a second time by a host
 * paused right after its fence, on waking.
 */
public final class SendDeadline implements HttpClientConfigurer {
    private static final ThreadLocal<Long> ARMED = new ThreadLocal<>();

    /** The next call of this thread goes out before {@code nanoTime} or not at all. */
    public static void arm(long nanoTime) {
        ARMED.set(nanoTime);
    }

    /**
     * Forgets a deadline a step armed and never used (it failed between its fence and its send):
     * called where a job's step begins, so the deadline never applies to another job's call.
     */
    public static void disarm() {
        ARMED.remove();
    }

    /** Throws when an armed deadline has passed; disarms it either way. */
    public static void check(String what) throws InterruptedIOException {
        Long deadline = ARMED.get();
        ARMED.remove();
        if (deadline != null && System.nanoTime() - deadline > 0) {
            String message = what + " not sent: this worker's hold on its job was confirmed too long ago (the host was"
                    + " paused?); the job stays where it is and its step is tried again, from the fence";
            // the cause is what routes/error-handling.yaml matches: the queue's trouble, the job stays (not failed)
            throw (InterruptedIOException) new InterruptedIOException(message).initCause(new LeaseLapsedException(message));
        }
    }

    @Override
    public void configureHttpClient(HttpClientBuilder builder) {
        builder.addExecInterceptorBefore(ChainElement.MAIN_TRANSPORT.name(), "send-deadline", (request, scope, chain) -> {
            check(request.getMethod() + " " + request.getRequestUri());
            return chain.proceed(request, scope);
        });
    }
}
