package org.cdlib.mrt.ingestqueue.camel;

import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.http.base.HttpOperationFailedException;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a job route's {@code onException} (routes/error-handling.yaml): the job fails with
 * the exception's message. An expected failure (a depositor's missing file, a service's refusal)
 * is told by the job's transition line alone; an unexpected one is logged with its stack trace
 * first, since it is the code's fault, not the depositor's.
 */
public final class JobFailure implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(JobFailure.class);
    private final boolean expected;

    private JobFailure(boolean expected) {
        this.expected = expected;
    }

    public static JobFailure expected() {
        return new JobFailure(true);
    }

    public static JobFailure unexpected() {
        return new JobFailure(false);
    }

    @Override
    public void process(Exchange exchange) {
        Throwable e = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        String message = e == null ? "the route failed" : callFailure(exchange, e);
        if (!expected) {
            LOG.error("job {} batch {}: unexpected failure in route {}", exchange.getIn().getHeader("jobId"),
                    exchange.getIn().getHeader("batchId"), exchange.getFromRouteId(), e);
        }
        JobExchange.failedBy(exchange, message);
    }

    /**
     * A failed outside call named by what was sent and where ({@code POST http://…: HTTP 503: …});
     * a request that may have been applied says it was not sent again. Anything else: its message.
     */
    static String callFailure(Exchange exchange, Throwable e) {
        String url = exchange.getProperty(ServiceCall.URL, String.class);
        boolean network = e instanceof HttpOperationFailedException
                || e instanceof SocketException || e instanceof SocketTimeoutException
                || e instanceof NoHttpResponseException || e instanceof SSLException;
        if (!network || url == null) {
            return messageOf(e);
        }
        String call = exchange.getIn().getHeader(Exchange.HTTP_METHOD, "POST", String.class) + " " + url + ": ";
        boolean repeatable = exchange.getProperty(ServiceCall.REPEATABLE, false, Boolean.class);
        String notAgain = repeatable ? "" : "; it may have been applied, so it is not sent again";
        if (e instanceof HttpOperationFailedException h) {
            String body = h.getResponseBody() == null ? "" : h.getResponseBody().strip();
            return call + "HTTP " + h.getStatusCode() + (body.isEmpty() ? "" : ": " + (body.length() > 300
                    ? body.substring(0, 300) + "…" : body)) + notAgain;
        }
        if (e instanceof ConnectException) {
            return call + "cannot connect (" + messageOf(e) + ")";
        }
        if (e instanceof SocketTimeoutException) {
            return call + "no answer within the response timeout (" + messageOf(e) + ")" + notAgain;
        }
        return call + "the connection broke (" + messageOf(e) + ")" + notAgain;
    }

    /** The message an operator sees: the step's own, not Camel's wrapping. */
    static String messageOf(Throwable e) {
        Throwable t = e;
        while ((t instanceof RuntimeCamelException || t instanceof ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }
}
