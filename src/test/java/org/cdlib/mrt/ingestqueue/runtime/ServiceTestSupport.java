package org.cdlib.mrt.ingestqueue.runtime;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.BatchExchange;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.StatusReport;

/** The service on a test ZooKeeper, with the job steps replaced by steps that record what they saw. */
public final class ServiceTestSupport {
    static final List<String> JOB_STEPS = List.of("estimateStep", "provisionStep", "downloadStep", "processStep",
            "storeStep", "recordStep", "notifyStep", "completeStep");

    /** A step that records the jobs it saw and does what the test tells it for a job, else nothing. */
    static final class RecordingStep implements Processor {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final Map<String, Consumer<Exchange>> behaviour = new ConcurrentHashMap<>();

        @Override
        public void process(Exchange exchange) {
            String id = JobExchange.carriesJob(exchange) ? JobExchange.job(exchange).id()
                    : BatchExchange.batch(exchange).id();
            seen.add(id);
            var b = behaviour.get(id);
            if (b != null) {
                b.accept(exchange);
            }
        }
    }

    /** Reports a batch the simple way: completed when no job failed. */
    static final class CountingReport implements Processor {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @Override
        public void process(Exchange exchange) {
            Batch b = BatchExchange.batch(exchange);
            seen.add(b.id());
            int failed = b.count(BatchRef.FAILED);
            BatchExchange.report(
                    exchange,
                    failed == 0 && b.status().errorMessage() == null ? BatchState.COMPLETED : BatchState.FAILED,
                    "test report",
                    new StatusReport(
                            Instant.now().toString(), List.of(), List.of(), 1, failed, b.count(BatchRef.COMPLETED)));
        }
    }

    final Map<String, RecordingStep> steps = new HashMap<>();

    /** The step fails the job once with {@code message}, then lets it pass. */
    public void failOnce(String step, String jid, String message) {
        AtomicBoolean failed = new AtomicBoolean();
        steps.get(step).behaviour.put(jid, e -> {
            if (!failed.getAndSet(true)) {
                throw new IllegalStateException(message);
            }
        });
    }
    final CountingReport report = new CountingReport();
    final RecordingStep queuedMail = new RecordingStep();

    public Map<String, Object> beans() {
        return beans(false);
    }

    /** With {@code realReporting}, the service's own report, mail and sweep steps run. */
    public Map<String, Object> beans(boolean realReporting) {
        Map<String, Object> beans = new HashMap<>();
        for (String s : JOB_STEPS) {
            steps.put(s, new RecordingStep());
            beans.put(s, steps.get(s));
        }
        if (!realReporting) {
            beans.put("reportStep", report);
            beans.put("updateReportStep", report);
            beans.put("queuedMailStep", queuedMail);
            beans.put("reportingSweep", (Processor) e -> { });
        }
        beans.put("cleanupStep", (Processor) e -> { });
        return beans;
    }

    /**
     * The service's routes, but processing, storing, recording and notify replaced by stand-ins that call
     * their step bean once (src/test/resources/stand-in-routes): the routes for step beans that
     * are recording or no-op stand-ins, as in tests and benchmarks of the queue's own flow.
     */
    public static Map<String, String> standInRoutes(Map<String, String> c) {
        c.put("camel.main.routes-include-pattern", "file:routes/*.yaml,file:src/test/resources/stand-in-routes/*.yaml");
        c.put(
                "camel.main.routes-exclude-pattern",
                "**/processing.yaml,**/storing.yaml,**/recording.yaml,**/notify.yaml");
        return c;
    }

    /**
     * The service with its real steps on the local back-ends (OCFL,
     * H2, mail outbox), under {@code dir}, HTTP on a free port.
     */
    public static Map<String, String> localBackEnds(String zookeeper, Path dir) {
        Map<String, String> c = new HashMap<>();
        c.put("zookeeper.connect", zookeeper);
        c.put("ingest.home", dir.resolve("queue").toString());
        c.put("ingest.profiles", dir.resolve("profiles").toString());
        c.put("ingest.storage.local.root", dir.resolve("storage").toString());
        c.put("ingest.storage.settle", "PT1S"); // the local storage commits within its call
        c.put("ingest.inventory.local.url", "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inv");
        c.put("ingest.mail.outbox", dir.resolve("outbox").toString());
        c.put("ingest.http.port", "0");
        return c;
    }

    public static Map<String, String> config(String zookeeper, Path dir) {
        Map<String, String> c = new HashMap<>();
        standInRoutes(c);
        c.put("zookeeper.connect", zookeeper);
        c.put("zookeeper.session-timeout", "PT5S");
        c.put("ingest.home", dir.resolve("queue").toString());
        c.put("ingest.profiles", dir.resolve("profiles").toString());
        c.put("ingest.provisioning.retry-delay", "100");
        c.put("ingest.batch.retry-delay", "200");
        c.put("ingest.http.port", "0");
        c.put("ingest.fetch.allow", AddressPolicy.LOOPBACK); // WireMock and test servers on loopback
        return c;
    }
}
