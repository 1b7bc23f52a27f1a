package org.cdlib.mrt.ingestqueue.camel;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.spi.ExceptionHandler;
import org.apache.camel.spi.Registry;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.curator.framework.CuratorFramework;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;
import org.cdlib.mrt.ingestqueue.queue.outcome.JobOutcome;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The zkqueue component as Camel sees it, on a real ZooKeeper: the outcome is applied once the
 * exchange is done, errors outside a route reach the endpoint's exception handler, options are
 * checked at route start and described by the endpoint's annotations.
 */
class ZkQueueComponentTest extends CamelTestSupport {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    QueueStore store;
    final Recorder handler = new Recorder();
    final List<Boolean> steps = new CopyOnWriteArrayList<>();
    /** The profile each job's run was told with (issue 45: step times per profile). */
    final List<String> profiles = new CopyOnWriteArrayList<>();

    /** An exception handler bean that keeps what it is told. */
    static final class Recorder implements ExceptionHandler {
        final List<String> messages = new CopyOnWriteArrayList<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final List<Exchange> exchanges = new CopyOnWriteArrayList<>();

        @Override
        public void handleException(Throwable exception) {
            handleException(null, null, exception);
        }

        @Override
        public void handleException(String message, Throwable exception) {
            handleException(message, null, exception);
        }

        @Override
        public void handleException(String message, Exchange exchange, Throwable exception) {
            messages.add(String.valueOf(message));
            errors.add(exception);
            if (exchange != null) {
                exchanges.add(exchange);
            }
        }
    }

    @Override
    protected void bindToRegistry(Registry registry) throws Exception {
        store = ZK.store(Files.createTempDirectory("zkqueue-test"));
        registry.bind("queueStore", store);
        registry.bind("myHandler", handler);
        registry.bind("observer", new StepObserver() {
            @Override
            public void stepEnded(String queue, Duration took, boolean failed) {
                steps.add(failed);
            }

            @Override
            public void stepEnded(String queue, String id, String profile, Duration took, boolean failed) {
                profiles.add(profile);
                stepEnded(queue, took, failed);
            }
        });
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                // each test adds the route it needs
            }
        };
    }

    private String pendingJob() {
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        return store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
    }

    private void route(String uri, Processor step, Processor onCompletion) throws Exception {
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                if (onCompletion != null) {
                    from(uri).routeId("under-test").onCompletion().process(onCompletion).end().process(step);
                } else {
                    from(uri).routeId("under-test").process(step);
                }
            }
        });
    }

    @Test
    void theJobMovesOnlyOnceTheExchangeIsDoneSoTheRoutesOnCompletionSeesItMoved() throws Exception {
        String jid = pendingJob();
        List<JobState> duringRoute = new CopyOnWriteArrayList<>();
        List<JobState> atCompletion = new CopyOnWriteArrayList<>();
        route("zkqueue:job/pending", e -> duringRoute.add(store.jobs().load(JobExchange.job(e).id()).state()),
                e -> atCompletion.add(store.jobs().load(jid).state()));

        await().atMost(Duration.ofSeconds(10)).until(() -> !atCompletion.isEmpty());
        assertEquals(List.of(JobState.PENDING), duringRoute, "the route runs on the job still in its state");
        assertEquals(List.of(JobState.ESTIMATING), atCompletion, "the route's onCompletion comes after the move");
        assertEquals(List.of(false), steps, "the step observer heard of one run that did not fail");
        assertEquals(List.of("demo_content"), profiles, "with the job's profile, as its lock read it");
        assertNull(ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)), "the lock released with the move");
    }

    @Test
    void aStepThatCallsFailMovesTheJobToFailedWithItsMessageAndNoException() throws Exception {
        String jid = pendingJob();
        List<Throwable> exceptions = new CopyOnWriteArrayList<>();
        route("zkqueue:job/pending?exceptionHandler=#myHandler",
                e -> JobExchange.fail(e, "the depositor's file is missing"),
                e -> exceptions.add(e.getException() == null ? new NoException() : e.getException()));

        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == JobState.FAILED);
        assertEquals("pending: the depositor's file is missing", store.jobs().load(jid).status().errorMessage());
        await().atMost(Duration.ofSeconds(10)).until(() -> !exceptions.isEmpty());
        assertInstanceOf(NoException.class, exceptions.get(0), "the exchange ended without an exception");
        assertEquals(List.of(), handler.errors, "nothing went wrong outside the route");
    }

    @Test
    void aRouteThatDecidesTwiceFailsItsJobNamingBothDecisions() throws Exception {
        String jid = pendingJob();
        route("zkqueue:job/pending", e -> {
            JobExchange.stay(e, "no room yet");
            JobExchange.fail(e, "the depositor's file is missing");
        }, null);

        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == JobState.FAILED);
        String error = store.jobs().load(jid).status().errorMessage();
        assertTrue(error.contains("job " + jid + ": its route decided") && error.contains("no room yet")
                && error.contains("the depositor's file is missing") && error.contains("a route decides once"), error);
    }

    /** Marks an exchange that ended without an exception. */
    static final class NoException extends RuntimeException {
    }

    @Test
    void aFailedScanReachesTheEndpointsExceptionHandler() throws Exception {
        // a store on a client of its own, closed under the running consumer: its next scan fails
        CuratorFramework client = QueueTestSupport.client(ZK.server());
        QueueStore own = QueueTestSupport.store(client, Files.createTempDirectory("zkqueue-closed"));
        context.getRegistry().bind("queueStore", own);
        route("zkqueue:job/pending?rescan=100&exceptionHandler=#myHandler", e -> { }, null);
        client.close();

        await().atMost(Duration.ofSeconds(10)).until(() -> !handler.errors.isEmpty());
        assertTrue(handler.messages.get(0).contains("zkqueue job/pending: scan failed"), handler.messages.get(0));
        assertInstanceOf(RuntimeException.class, handler.errors.get(0));
        assertEquals(List.of(), handler.exchanges, "a scan has no exchange");
    }

    @Test
    void withBridgeErrorHandlerAFailedScanGoesThroughTheRoutesErrorHandler() throws Exception {
        CuratorFramework client = QueueTestSupport.client(ZK.server());
        QueueStore own = QueueTestSupport.store(client, Files.createTempDirectory("zkqueue-bridged"));
        context.getRegistry().bind("queueStore", own);
        List<Throwable> caught = new CopyOnWriteArrayList<>();
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("zkqueue:batch/pending?rescan=100&bridgeErrorHandler=true").routeId("bridged")
                        .onException(Exception.class).handled(true)
                        .process(e -> caught.add(e.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class))).end()
                        .process(e -> { });
            }
        });
        client.close();

        await().atMost(Duration.ofSeconds(10)).until(() -> !caught.isEmpty());
        // the pass's first request fails: the queue hold's or this host's drain node (both are its hold check)
        String m = messages(caught.get(0));
        assertTrue(m.contains("/locks/queue") || m.contains("/drains/"), m);
    }

    @Test
    void anOutcomeThatCannotBeAppliedReachesTheHandlerWithItsExchangeAndTheJobStays() throws Exception {
        String jid = pendingJob();
        // a step deciding a move without what it writes (a programming error): the job's outcome cannot be applied
        route("zkqueue:job/pending?retryDelay=60000&exceptionHandler=#myHandler",
                e -> Taken.<HeldJob, JobOutcome>of(e, HeldJob.class, "job")
                        .decide(new JobOutcome.Next(JobState.ESTIMATING, null)), null);

        await().atMost(Duration.ofSeconds(10)).until(() -> !handler.exchanges.isEmpty());
        assertTrue(handler.messages.get(0).contains(jid + " not moved"), handler.messages.get(0));
        assertEquals(jid, handler.exchanges.get(0).getIn().getHeader("jobId"));
        assertEquals(JobState.PENDING, store.jobs().load(jid).state());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ZK.client().checkExists().forPath(QueuePaths.jobLock(jid)) == null);
    }

    @Test
    void anUnknownOptionIsRefusedAtRouteStartNamingIt() {
        Exception e = assertThrows(Exception.class, () -> route("zkqueue:job/processing?concurency=2", x -> { }, null));
        assertTrue(messages(e).contains("concurency"), messages(e));
    }

    @Test
    void aStateNobodyWorksOnIsRefusedNamingTheStatesThatAre() {
        Exception e = assertThrows(Exception.class, () -> route("zkqueue:job/completed", x -> { }, null));
        assertTrue(
                messages(e)
                        .contains("pending, estimating, provisioning, downloading, processing, storing, recording,"
                                + " notify"),
                messages(e));
        Exception b = assertThrows(Exception.class, () -> route("zkqueue:batch/completed", x -> { }, null));
        assertTrue(messages(b).contains("pending, reporting, update-reporting"), messages(b));
    }

    @Test
    void theEndpointsOptionsAreItsAnnotatedParametersWithTheirDefaults() throws Exception {
        ZkQueueEndpoint plain = context.getEndpoint("zkqueue:batch/reporting", ZkQueueEndpoint.class);
        Map<String, Object> properties = new HashMap<>();
        PluginHelper.getBeanIntrospection(context).getProperties(plain, properties, null);
        List<String> params = new ArrayList<>();
        for (Field f : ZkQueueEndpoint.class.getDeclaredFields()) {
            UriParam p = f.getAnnotation(UriParam.class);
            if (p != null) {
                params.add(f.getName());
                assertEquals(p.defaultValue(), String.valueOf(properties.get(f.getName())), f.getName());
                assertFalse(p.description().isBlank(), f.getName());
                assertEquals("consumer", p.label(), f.getName());
            }
        }
        assertEquals(List.of("concurrency", "rescan", "retryDelay", "handOffWait"), params);

        ZkQueueEndpoint set = context.getEndpoint(
                "zkqueue:job/processing?concurrency=3&rescan=500&retryDelay=700&handOffWait=0", ZkQueueEndpoint.class);
        assertEquals(3, set.getConcurrency());
        assertEquals(500, set.getRescan());
        assertEquals(700, set.getRetryDelay());
        assertEquals(0, set.getHandOffWait());
        assertEquals("job", set.getKind());
        assertEquals("processing", set.getState());
    }

    @Test
    void everyStateThePathAnnotationListsIsAcceptedForItsKind() throws Exception {
        UriEndpoint meta = ZkQueueEndpoint.class.getAnnotation(UriEndpoint.class);
        assertEquals("zkqueue", meta.scheme());
        assertTrue(meta.consumerOnly());
        assertInstanceOf(ZkQueueComponent.class, context.getComponent(meta.scheme()));
        String[] kinds = ZkQueueEndpoint.class.getDeclaredField("kind").getAnnotation(UriPath.class).enums().split(",");
        assertEquals(List.of("job", "batch"), List.of(kinds));
        String[] states = ZkQueueEndpoint.class
                .getDeclaredField("state")
                .getAnnotation(UriPath.class)
                .enums()
                .split(",");
        for (String state : states) {
            String kind =
                    QueueKind.BATCH_STATES.stream().anyMatch(s -> s.wire().equals(state)) && !state.equals("pending")
                            ? "batch"
                            : "job";
            ZkQueueEndpoint ep = context.getEndpoint("zkqueue:" + kind + "/" + state, ZkQueueEndpoint.class);
            assertEquals(state, ep.getState());
        }
        List<String> worked = new ArrayList<>();
        for (JobState s : JobState.values()) {
            if (s.isWorking()) {
                worked.add(s.wire());
            }
        }
        QueueKind.BATCH_STATES.forEach(s -> {
            if (!worked.contains(s.wire())) {
                worked.add(s.wire());
            }
        });
        assertEquals(worked, List.of(states), "the annotation lists exactly the states a consumer works on");
    }

    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append(" | ");
        }
        return all.toString();
    }
}
