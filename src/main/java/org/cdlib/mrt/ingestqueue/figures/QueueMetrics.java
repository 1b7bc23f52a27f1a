package org.cdlib.mrt.ingestqueue.figures;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.cdlib.mrt.ingestqueue.camel.StepObserver;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.log.TransitionEvent;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.queue.model.QueueHealth;

/**
 * Prometheus metrics: jobs and batches per state (read at scrape time), transitions (a counter:
 * Prometheus' rate() gives transitions per second), failures per step, and step durations.
 */
public final class QueueMetrics implements StepObserver {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final QueueStore store;
    private volatile Map<JobState, Integer> jobs = Map.of();
    private volatile Map<BatchState, Integer> batches = Map.of();
    private volatile Map<String, Integer> work = Map.of();
    private final Map<String, Counter> transitions = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Boolean> workerMeters = new ConcurrentHashMap<>();

    public QueueMetrics(QueueStore store) {
        this.store = store;
        for (JobState s : JobState.values()) {
            if (s != JobState.DELETED) {
                Gauge.builder("ingest.jobs", () -> jobs.getOrDefault(s, 0)).tag("state", s.wire())
                        .description("jobs in each state").register(registry);
            }
        }
        for (String kind : List.of("active", "waiting", "held")) {
            Gauge.builder("ingest.jobs.open", () -> work.getOrDefault(kind, 0)).tag("as", kind)
                    .description("open jobs as the dashboard's tiles count them: active (a worker holds it), "
                            + "waiting (no worker has it), held").register(registry);
        }
        for (BatchState s : BatchState.values()) {
            Gauge.builder("ingest.batches", () -> batches.getOrDefault(s, 0)).tag("state", s.wire())
                    .description("batches in each state").register(registry);
        }
        FunctionCounter.builder("ingest.damaged.skips", store, QueueStore::damagedSkips)
                .description("times a damaged job or batch was skipped by a consumer or a read").register(registry);
        Gauge.builder("ingest.consumers.failing", () -> store.health().problems().size())
                .description("consumers whose last scan of the queue failed").register(registry);
        store.addListener(this::transitioned);
    }

    private void transitioned(TransitionEvent e) {
        String from = e.from() == null ? "none" : e.from();
        transitions.computeIfAbsent(e.kind() + from + e.to(), k -> Counter.builder("ingest.transitions")
                .description("committed state changes").tag("kind", e.kind()).tag("from", from).tag("to", e.to())
                .register(registry)).increment();
        if ("failed".equals(e.to()) && TransitionEvent.JOB.equals(e.kind())) {
            registry.counter("ingest.step.failures", "state", from).increment();
        }
    }

    @Override
    public void stepEnded(String queue, Duration took, boolean failed) {
        timers.computeIfAbsent(queue + failed, k -> Timer.builder("ingest.step.duration")
                .description("time a route run took")
                .tag("queue", queue).tag("outcome", failed ? "failed" : "ok").register(registry)).record(took);
    }

    private double worker(String queue, ToDoubleFunction<QueueHealth.Workers> f) {
        var w = store.health().workers().get(queue);
        return w == null ? 0 : f.applyAsDouble(w);
    }

    public String scrape() {
        jobs = store.jobs().counts();
        Map<String, Integer> byWire = new LinkedHashMap<>();
        jobs.forEach((s, n) -> byWire.put(s.wire(), n));
        work = OpenStates.work(store, byWire);
        batches = store.batches().counts();
        // per-state utilisation: read through the consumer running now under that name (a restarted one too)
        store.health().workers().keySet().forEach(queue -> workerMeters.computeIfAbsent(queue, q -> {
            Gauge.builder("ingest.workers.busy", () -> worker(q, w -> w.busy().getAsInt())).tag("queue", q)
                    .description("workers busy now, per consumer").register(registry);
            Gauge.builder("ingest.workers.capacity", () -> worker(q, w -> w.capacity())).tag("queue", q)
                    .description("workers per consumer (its concurrency)").register(registry);
            FunctionCounter.builder("ingest.workers.busy.seconds", q,
                    x -> worker(x, w -> w.busyNanos().getAsLong() / 1e9)).tag("queue", q)
                    .description("time workers were busy; rate() / capacity = utilisation").register(registry);
            return Boolean.TRUE;
        }));
        return registry.scrape();
    }
}
