package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Pulls a response body one chunk at a time with a bound on each wait: HttpClient's request
 * timeout ends with the headers, so without this a server that stops sending mid-body would
 * hold a download forever. One chunk is requested at a time, so memory stays small.
 */
final class BodyReader implements Flow.Subscriber<List<ByteBuffer>> {
    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (cancelled) {
            s.cancel();
        } else {
            s.request(1);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        queue.add(item);
    }

    @Override
    public void onError(Throwable t) {
        queue.add(t);
    }

    @Override
    public void onComplete() {
        queue.add(END);
    }

    /** The next chunk, or null at the end of the body. */
    @SuppressWarnings("unchecked")
    List<ByteBuffer> next(Duration idle) throws IOException, InterruptedException {
        Object o = queue.poll(idle.toMillis(), TimeUnit.MILLISECONDS);
        if (o == null) {
            cancel();
            throw new HttpTimeoutException("no data received for " + idle);
        }
        if (o == END) {
            return null;
        }
        if (o instanceof Throwable t) {
            throw t instanceof IOException io ? io : new IOException(t.getMessage(), t);
        }
        Flow.Subscription s = subscription;
        if (s != null) {
            s.request(1);
        }
        return (List<ByteBuffer>) o;
    }

    void cancel() {
        cancelled = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }
}
