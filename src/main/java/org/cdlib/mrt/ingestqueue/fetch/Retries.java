package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.cdlib.mrt.ingestqueue.fetch.CheckedClient.StatusException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.cdlib.mrt.ingestqueue.fetch.Fetcher.describe;

/**
 * Runs one fetch again when it may go better next time: connection errors, timeouts, 5xx and
 * 429 are retried {@code retries} times with an exponential backoff; any other status, a
 * {@link FetchException} (among them an {@link AnswerLimitException}: such a server would break the
 * limit again) or an interrupt ends it at once. A cancelled run is not tried again, nor is anything
 * once the service stops (the backoff ends then, with a {@link StoppingException}). Each attempt runs the fetch again
 * (a download that broke half-way asks for the rest where its server allows: {@link ResumeRecord}), and the
 * failure names the URL, the reason and how many attempts were made.
 */
final class Retries {
    // under Fetcher's name: the one logging configurations and readers of the log know these retries by
    private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);

    interface Attempt<T> {
        T run() throws IOException, InterruptedException;
    }

    private final FetchSettings settings;
    private final StopGate gate;

    Retries(FetchSettings settings, StopGate gate) {
        this.settings = settings;
        this.gate = gate;
    }

    <T> T run(URI uri, Attempt<T> attempt) throws FetchException {
        return run(uri, null, attempt);
    }

    /**
     * As {@link #run(URI, Attempt)}, all attempts within {@code deadline} (none: no bound): no
     * attempt starts, nor a backoff is waited, that would end past it.
     */
    <T> T run(URI uri, Deadline deadline, Attempt<T> attempt) throws FetchException {
        int attempts = settings.retries() + 1;
        for (int n = 1; ; n++) {
            String reason;
            try {
                return attempt.run();
            } catch (FetchException e) {
                throw e;
            } catch (StatusException e) {
                if (e.status / 100 == 3) {
                    throw new FetchException(uri + ": HTTP " + e.status + " not followed (too many redirects, "
                            + "or from https to http)" + after(n));
                }
                if (!e.retryable()) {
                    throw new FetchException(uri + ": HTTP " + e.status + after(n));
                }
                reason = "HTTP " + e.status;
            } catch (SocketTimeoutException e) {
                reason = "timed out (" + e.getMessage() + ")";
            } catch (ConnectionRequestTimeoutException e) {
                // every connection to the host stayed busy (ingest.fetch.connections-per-host set below the work)
                reason = "no connection to the host came free in time (" + e.getMessage() + ")";
            } catch (InterruptedException | InterruptedIOException e) {
                Thread.currentThread().interrupt();
                throw new FetchException(uri + ": interrupted");
            } catch (IOException e) {
                reason = describe(e);
            }
            if (n >= attempts) {
                throw new FetchException(uri + ": " + reason + after(n));
            }
            if (Thread.currentThread().isInterrupted() || RunCancelled.here()) {
                throw new FetchException(uri + ": " + reason + after(n) + "; not tried again: the run was cancelled");
            }
            Duration wait = settings.backoff().multipliedBy(1L << Math.min(n - 1, 16));
            if (deadline != null && deadline.remainingNanos() <= wait.toNanos()) {
                throw new FetchException(
                        uri + ": " + reason + after(n) + "; no time for another within " + deadline.limit());
            }
            LOG.warn("{}: {} (attempt {} of {}); retrying in {}", uri, reason, n, attempts, wait);
            try {
                if (!gate.pause(wait)) {
                    throw new StoppingException(uri + ": " + reason + after(n) + "; the retry");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FetchException(uri + ": interrupted while waiting to retry after " + reason);
            }
        }
    }

    private static String after(int attempts) {
        return " after " + attempts + (attempts == 1 ? " attempt" : " attempts");
    }
}
