package org.cdlib.mrt.ingestqueue.routes;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.camel.builder.AdviceWith;
import org.cdlib.mrt.ingestqueue.camel.JobFailure;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.manifest.ManifestException;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.services.Run;
import org.cdlib.mrt.ingestqueue.services.ServiceException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * routes/error-handling.yaml (routeConfiguration job-outcomes), on the job-pending route with a
 * failing step woven in first: the queue's own trouble leaves the job where it is, an expected
 * failure fails it in one line with no stack trace, anything else fails it after an ERROR with
 * the trace.
 */
class ErrorHandlingRouteTest extends RouteTestSupport {
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();
    final AtomicInteger thrown = new AtomicInteger();

    /** The job-pending route whose first step throws what {@code failure} makes; a pending job for it. */
    String failingWith(Supplier<? extends Exception> failure) throws Exception {
        load("job-pending.yaml");
        AdviceWith.adviceWith(context, "job-pending", a -> a.weaveAddFirst().process(e -> {
            thrown.incrementAndGet();
            throw failure.get();
        }));
        context.start();
        return jobIn(JobState.PENDING, fileJob("http://127.0.0.1/o/a.txt", "a.txt", null, null, null), 0);
    }

    Job awaitFailed(String jid) {
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == JobState.FAILED);
        return store.jobs().load(jid);
    }

    static Stream<Arguments> expectedFailures() {
        return Stream.of(
                Arguments.of((Supplier<Exception>) () -> new FetchException("http://127.0.0.1/o/a.txt: HTTP 404"),
                        "pending: http://127.0.0.1/o/a.txt: HTTP 404"),
                Arguments.of((Supplier<Exception>) () -> new ServiceException("storage refused the object"),
                        "pending: storage refused the object"),
                Arguments.of((Supplier<Exception>) () -> new ManifestException(3, "no such digest"),
                        "pending: manifest line 3: no such digest"),
                Arguments.of((Supplier<Exception>) () -> new IllegalArgumentException("bad local id"),
                        "pending: bad local id"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("expectedFailures")
    void anExpectedFailureFailsTheJobWithItsMessageAndNoStackTrace(Supplier<Exception> failure, String message)
            throws Exception {
        Job job = awaitFailed(failingWith(failure));
        assertEquals(message, job.status().errorMessage());
        assertEquals(List.of(), logs.errorsWithTrace().stream().map(ILoggingEvent::getFormattedMessage).toList());
    }

    @Test
    void anythingElseFailsTheJobAfterAnErrorWithItsTrace() throws Exception {
        String jid = failingWith(() -> new NullPointerException("a bug"));
        Job job = awaitFailed(jid);
        assertEquals("pending: a bug", job.status().errorMessage());
        List<ILoggingEvent> traced = logs.errorsWithTrace();
        assertEquals(1, traced.size(), traced.toString());
        assertEquals(JobFailure.class.getName(), traced.get(0).getLoggerName());
        assertTrue(traced.get(0).getFormattedMessage().contains("job " + jid), traced.get(0).getFormattedMessage());
        assertEquals(NullPointerException.class.getName(), traced.get(0).getThrowableProxy().getClassName());
    }

    @Test
    void theQueuesOwnTroubleLeavesTheJobWhereItIsUnlocked() throws Exception {
        String jid = failingWith(() -> new QueueException("ZooKeeper unreachable"));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> thrown.get() >= 1 && store.jobs().load(jid).lockOwner() == null);
        assertEquals(JobState.PENDING, store.jobs().load(jid).state());
        assertEquals(null, store.jobs().load(jid).status().errorMessage());
        assertTrue(
                transitions.stream().noneMatch(t -> t.id().equals(jid) && "pending".equals(t.from())),
                transitions.toString());
        assertTrue(logs.events().stream().anyMatch(e -> e.getFormattedMessage()
                .equals("job " + jid + " batch " + store.jobs().load(jid).batchId()
                        + ": stays in pending, the queue could not be reached: ZooKeeper unreachable")));
        assertEquals(List.of(), logs.errorsWithTrace().stream().map(ILoggingEvent::getFormattedMessage).toList());
    }

    @Test
    void aFencedCallPastItsDeadlineLeavesTheJobWhereItIs() throws Exception {
        String jid = failingWith(() -> {
            try {
                Run.current().sendBy(System.nanoTime() - 1); // the step runs on a worker: its run
                Run.checkSend("POST /add/9999/ark");
                return new IllegalStateException("the deadline did not stop the call");
            } catch (InterruptedIOException e) {
                return e; // as HttpClient throws it
            }
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> thrown.get() >= 1 && store.jobs().load(jid).lockOwner() == null);
        assertEquals(JobState.PENDING, store.jobs().load(jid).state());
        assertEquals(null, store.jobs().load(jid).status().errorMessage());
        assertTrue(
                transitions.stream().noneMatch(t -> t.id().equals(jid) && "pending".equals(t.from())),
                transitions.toString());
    }
}
