package org.cdlib.mrt.ingestqueue.steps;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.AnswerLimitException;
import org.cdlib.mrt.ingestqueue.fetch.Container;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.fetch.ObjectFile;
import org.cdlib.mrt.ingestqueue.fetch.Payload;
import org.cdlib.mrt.ingestqueue.fetch.StoppingException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code estimateStep}: sums the sizes of the object's files into space_needed, from HEAD
 * requests (in parallel, bounded, one attempt each) or, when a server gives no Content-Length,
 * the size a manifest row declares. It does not fail for what cannot be sized (the design): that
 * counts 0, an unreadable payload gives 0, and both are logged. An answer that breaks a limit
 * ({@link AnswerLimitException}: endless header lines, a line without end, a manifest beyond its
 * bound) fails the job with its message instead: the download would meet the same server, and a
 * job left to be resumed would send the same request again. A job larger than {@code largeBytes}
 * is moved back to priority {@code largePriority} (a larger number runs later) so that it does
 * not hold up the queue.
 */
public final class EstimateStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(EstimateStep.class);

    private final Fetcher fetcher;
    private final long largeBytes;
    private final int largePriority;

    public EstimateStep(Fetcher fetcher, long largeBytes, int largePriority) {
        this.fetcher = fetcher;
        this.largeBytes = largeBytes;
        try {
            this.largePriority = QueuePaths.checkPriority(largePriority);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("ingest.estimate.large-priority: " + e.getMessage(), e);
        }
    }

    @Override
    public void process(Exchange exchange) throws AnswerLimitException {
        Job job = JobExchange.job(exchange);
        long bytes;
        try {
            bytes = estimate(job.id(), job.configuration());
        } catch (StoppingException e) {
            JobExchange.stay(exchange, e.getMessage()); // estimated after the start, not counted as 0 bytes now
            return;
        }
        JobExchange.change(exchange, c -> c.withSpaceNeeded(bytes));
        if (bytes > largeBytes && job.priority() < largePriority) {
            LOG.info("job {} batch {}: {} bytes is above {}; priority {} -> {}", job.id(), job.batchId(), bytes,
                    largeBytes, job.priority(), largePriority);
            JobExchange.change(exchange, c -> c.withPriority(largePriority));
        }
    }

    /** An answer beyond a limit, or a HEAD not sent for the stop, carried out of a parallel task. */
    private static final class Refused extends RuntimeException {
        final FetchException answer;

        Refused(FetchException answer) {
            super(answer.getMessage(), answer, false, false);
            this.answer = answer;
        }

        /** The answer beyond a limit, to throw; a stop's refusal is thrown here. */
        AnswerLimitException raise() throws StoppingException {
            if (answer instanceof StoppingException s) {
                throw s;
            }
            return (AnswerLimitException) answer;
        }
    }

    /**
     * The estimated bytes of a job's object; 0 when nothing can be sized. Throws only for an
     * answer that broke a limit, or a request not sent because the service is stopping.
     */
    public long estimate(String jid, JobConfiguration c) throws AnswerLimitException, StoppingException {
        try {
            Payload payload = Payload.of(c, fetcher);
            List<Long> sizes;
            try {
                sizes = fetcher.inParallel(payload.files(), f -> size(jid, f));
            } catch (Refused r) { // one file: sized on this thread
                throw r.raise();
            } catch (IllegalStateException e) { // several: a pool's task failed
                if (e.getCause() instanceof Refused r) {
                    throw r.raise();
                }
                throw e;
            }
            long total = sizes.stream().mapToLong(Long::longValue).sum();
            if (payload.type() == Payload.Type.CONTAINER && total > 0) {
                total += unpacked(jid, payload.container(), total);
            }
            LOG.info("job {} batch {}: estimated {} bytes for {} file(s) of {}", jid, c.batchId(), total,
                    payload.files().size(), c.payloadUrl());
            return total;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("job {}: estimate interrupted; counting 0 bytes", jid);
            return 0;
        } catch (AnswerLimitException | StoppingException e) {
            throw e;
        } catch (FetchException | RuntimeException e) {
            LOG.warn("job {} batch {}: cannot estimate, counting 0 bytes: {}", jid, c.batchId(), e.getMessage());
            return 0;
        }
    }

    /** The end of a container read for its directory or trailer. */
    static final int TAIL_BYTES = 256 * 1024;

    /**
     * What a container unpacks to, where its format says it (a zip's central directory, a
     * gzip's trailer), read with two small Range requests; 0 when nothing says it (the
     * container's own size is then the estimate). Downloading keeps the container while
     * unpacking, so both count.
     */
    private long unpacked(String jid, ObjectFile container, long size)
            throws AnswerLimitException, StoppingException {
        try {
            var head = fetcher.range(container.url(), false, 8);
            var tail = head.isEmpty() ? Optional.<byte[]>empty() : fetcher.range(container.url(), true, TAIL_BYTES);
            if (head.isPresent() && tail.isPresent()) {
                OptionalLong declared = Container.declaredSize(head.get(), tail.get(), size);
                if (declared.isPresent()) {
                    LOG.info(
                            "job {}: container {} declares {} bytes unpacked",
                            jid,
                            container.name(),
                            declared.getAsLong());
                    return declared.getAsLong();
                }
            }
        } catch (AnswerLimitException | StoppingException e) {
            throw e;
        } catch (FetchException | RuntimeException e) {
            LOG.warn("job {}: cannot read the directory of container {}: {}", jid, container.name(), e.getMessage());
        }
        return 0;
    }

    private long size(String jid, ObjectFile f) {
        long declared = f.size() != null ? f.size() : 0;
        try {
            OptionalLong announced = fetcher.size(f.url());
            return announced.isPresent() ? announced.getAsLong() : declared;
        } catch (AnswerLimitException | StoppingException e) {
            throw new Refused(e);
        } catch (FetchException | RuntimeException e) {
            LOG.warn("job {}: cannot size {}, counting {} bytes: {}", jid, f.name(), declared, e.getMessage());
            return declared;
        }
    }
}
