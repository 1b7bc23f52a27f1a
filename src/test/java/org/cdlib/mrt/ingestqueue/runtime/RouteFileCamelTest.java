package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.camel.test.junit5.TestExecutionConfiguration;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.camel.JobFailure;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.Change;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each YAML route file on its own in camel-test-junit5, with a mock endpoint woven in after its
 * steps, consuming from the real queue on a real ZooKeeper: the route takes the job or batch
 * waiting in its state, runs its steps, and the outcome moves it on.
 */
class RouteFileCamelTest extends CamelTestSupport {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    QueueStore store;

    @Override
    public void configureTest(TestExecutionConfiguration configuration) {
        configuration.withUseAdviceWith(true);
    }

    /** The elections the routes of one host at a time start by, as IngestService sets it up. */
    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext c = super.createCamelContext();
        ElectedRoutes.install(c, ZK.client(), "route-test-" + System.nanoTime(), (route, running) -> { });
        return c;
    }

    @Override
    protected void bindToRegistry(Registry registry) throws Exception {
        store = ZK.store(Files.createTempDirectory("route-test"));
        registry.bind("queueStore", store);
        Map<String, Processor> steps = new HashMap<>();
        for (String bean : StartChecks.knownBeans(Map.of()).names()) {
            if (!StartChecks.SERVICE_BEANS.containsKey(bean)) {
                steps.put(bean, e -> { });
            }
        }
        // batch steps choose where the batch goes
        steps.put("batchPendingStep", e -> BatchExchange.next(e, BatchState.PROCESSING, "test"));
        steps.put("reportStep", e -> BatchExchange.next(e, BatchState.COMPLETED, "test"));
        steps.put("updateReportStep", e -> BatchExchange.next(e, BatchState.COMPLETED, "test"));
        steps.forEach(registry::bind);
        registry.bind("expectedFailure", JobFailure.expected());
        registry.bind("unexpectedFailure", JobFailure.unexpected());
    }

    private void load(String file) throws Exception {
        PluginHelper.getRoutesLoader(context).loadRoutes(
                ResourceHelper.resolveMandatoryResource(context, "file:routes/error-handling.yaml"));
        PluginHelper.getRoutesLoader(context)
                .loadRoutes(ResourceHelper.resolveMandatoryResource(context, "file:routes/" + file));
    }

    @ParameterizedTest
    @CsvSource({
        "job-pending.yaml, job-pending, pending",
        "estimating.yaml, job-estimating, estimating",
        "provisioning.yaml, job-provisioning, provisioning",
        "downloading.yaml, job-downloading, downloading"
    })
    // processing, storing, recording and notify call outside services between their steps: steps/ServiceCallRoutesTest
    void aJobRouteTakesItsJobRunsItsStepsAndMovesItToTheNextState(String file, String routeId, String state)
            throws Exception {
        JobState s = JobState.fromWire(state);
        String bid = QueueTestSupport.batchWithJobs(store, 1, 5);
        String jid = store.batches().jobs(bid, BatchRef.PROCESSING).get(0);
        for (JobState at = JobState.PENDING; at != s; at = at.successor()) {
            HeldJob l = store.claims().claim(at, store.jobs().load(jid).refName(), "test").orElseThrow();
            store.moves().transition(l, at.successor(), Change.because("setup"));
        }
        load(file);
        AdviceWith.adviceWith(context, routeId, a -> a.weaveAddLast().to("mock:end"));
        MockEndpoint end = getMockEndpoint("mock:end");
        end.expectedMessageCount(1);
        context.start();
        end.assertIsSatisfied(10_000);
        Exchange got = end.getReceivedExchanges().get(0);
        assertEquals(jid, JobExchange.job(got).id());
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() == s.successor());
    }

    @ParameterizedTest
    @CsvSource({
        "batch-pending.yaml, batch-pending, pending, processing",
        "batch-reporting.yaml, batch-reporting, reporting, completed",
        "batch-update-reporting.yaml, batch-update-reporting, update-reporting, completed"
    })
    void aBatchRouteTakesItsBatchAndMovesItWhereItsStepSays(String file, String routeId, String state, String next)
            throws Exception {
        String bid = store.batches().create(QueueTestSupport.submission("demo_content"));
        if (!state.equals("pending")) {
            store.moves()
                    .transition(
                            store.batches().tryLock(bid, "test").orElseThrow(),
                            BatchState.REPORTING,
                            "setup",
                            null,
                            null);
        }
        if (state.equals("update-reporting")) {
            store.moves()
                    .transition(
                            store.batches().tryLock(bid, "test").orElseThrow(), BatchState.FAILED, "setup", null, null);
            new AdminActions(store, Clock.systemUTC()).updateReporting(bid, "test");
        }
        load(file);
        AdviceWith.adviceWith(context, routeId, a -> a.weaveAddLast().to("mock:end"));
        MockEndpoint end = getMockEndpoint("mock:end");
        end.expectedMessageCount(1);
        end.expectedHeaderReceived("batchId", bid);
        context.start();
        end.assertIsSatisfied(10_000);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> store.batches().load(bid).state() == BatchState.fromWire(next));
        assertEquals(List.of(), store.batches().jobs(bid, BatchRef.PROCESSING));
    }
}
