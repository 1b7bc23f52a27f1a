package org.cdlib.mrt.ingestqueue.camel;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
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
        String message = e == null ? "the route failed" : QueueConsumer.messageOf(e);
        if (!expected) {
            LOG.error("job {} batch {}: unexpected failure in route {}", exchange.getIn().getHeader("jobId"),
                    exchange.getIn().getHeader("batchId"), exchange.getFromRouteId(), e);
        }
        JobExchange.fail(exchange, message);
    }
}
