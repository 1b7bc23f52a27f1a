package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.camel.Exchange;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.camel.JobFailure;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.Run;

/**
 * {@code routes/processing.yaml}, {@code storing.yaml}, {@code recording.yaml} and {@code notify.yaml} as the service
 * runs them — the route files themselves, the beans {@link ProcessingModule} binds for the given
 * configuration, {@code routes/error-handling.yaml} — with each job route started from
 * {@code direct:<route id>} instead of its zkqueue consumer, so a test hands it one locked job
 * and reads the outcome the consumer would apply.
 */
final class ServiceRoutes implements AutoCloseable {
    static final List<String> JOB_ROUTES = List.of("job-processing", "job-storing", "job-recording", "job-notify");
    final DefaultCamelContext camel = new DefaultCamelContext();

    ServiceRoutes(QueueStore store, ProfileRegistry profiles, Map<String, String> configuration) throws Exception {
        this(store, profiles, configuration, Map.of());
    }

    /** With {@code beans} bound over what the module bound (a test's own storage, say). */
    ServiceRoutes(
            QueueStore store, ProfileRegistry profiles, Map<String, String> configuration, Map<String, Object> beans)
            throws Exception {
        this(store, profiles, configuration, beans, c -> { });
    }

    /** With {@code advice} applied to the routes before they start (AdviceWith: outside calls replaced by mocks). */
    ServiceRoutes(
            QueueStore store,
            ProfileRegistry profiles,
            Map<String, String> configuration,
            Map<String, Object> beans,
            Advice advice)
            throws Exception {
        Properties p = new Properties();
        p.putAll(configuration);
        camel.getPropertiesComponent().setInitialProperties(p);
        HttpComponent http = camel.getComponent("http", HttpComponent.class);
        int timeout = Integer.parseInt(configuration.getOrDefault("camel.component.http.response-timeout", "5000"));
        http.setConnectTimeout(2000);
        http.setResponseTimeout(timeout);
        http.setSoTimeout(timeout);
        camel.getRegistry().bind("queueStore", store);
        camel.getRegistry().bind("expectedFailure", JobFailure.expected());
        camel.getRegistry().bind("unexpectedFailure", JobFailure.unexpected());
        camel.getRegistry().bind("completeStep", new CompleteStep(store.ingestHome()));
        new ProcessingModule().bind(new QueueContext(camel, store, profiles));
        beans.forEach((name, bean) -> {
            camel.getRegistry().unbind(name);
            camel.getRegistry().bind(name, bean);
        });
        for (String file : List.of("error-handling", "processing", "storing", "recording", "notify")) {
            PluginHelper.getRoutesLoader(camel).loadRoutes(
                    ResourceHelper.resolveMandatoryResource(camel, "file:routes/" + file + ".yaml"));
        }
        for (String route : JOB_ROUTES) {
            AdviceWith.adviceWith(camel, route, a -> a.replaceFromWith("direct:" + route));
        }
        advice.apply(camel);
        camel.start();
    }

    /** The configuration tests use: retries quick, the local inventory in memory. */
    static Map<String, String> config(String... keyValues) {
        Map<String, String> c = new HashMap<>(Map.of(
                "ingest.services.retry-delay",
                "10",
                "ingest.storage.settle",
                "PT0S",
                "ingest.inventory.settle",
                "PT0S",
                "ingest.ezid.settle",
                "PT0S",
                "ingest.inventory.local.url",
                "jdbc:h2:mem:inv" + System.nanoTime() + ";DB_CLOSE_DELAY=-1"));
        for (int i = 0; i < keyValues.length; i += 2) {
            c.put(keyValues[i], keyValues[i + 1]);
        }
        return c;
    }

    H2Inventory localIndex() {
        return camel.getRegistry().lookupByNameAndType("localIndex", H2Inventory.class);
    }

    /** Runs a job route on the locked job; the exchange holds the outcome (failure, stay, change). */
    Exchange send(String route, HeldJob lock) {
        Exchange ex = new DefaultExchange(camel);
        JobExchange.put(ex, lock);
        ex.getIn().setBody(lock.job());
        ex.getIn().setHeader("jobId", lock.jid());
        ex.getIn().setHeader("batchId", lock.job().batchId());
        Run run = Run.begin(); // as a worker runs a job: its own run, ended when the route returns
        try {
            return camel.createProducerTemplate().send("direct:" + route, ex);
        } finally {
            run.end();
        }
    }

    /**
     * Runs a job route and throws what would fail the job (a step's
     * exception, or the failure the route's error handling chose).
     */
    Exchange run(String route, HeldJob lock) throws Exception {
        Exchange ex = send(route, lock);
        if (ex.getException() != null) {
            throw ex.getException();
        }
        String failure = JobExchange.failure(ex);
        if (failure != null) {
            throw new JobFailed(failure, ex.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class));
        }
        return ex;
    }

    Exchange processing(HeldJob lock) throws Exception {
        return run("job-processing", lock);
    }

    Exchange storing(HeldJob lock) throws Exception {
        return run("job-storing", lock);
    }

    /** Processing, then storing on the same lock, as the consumers run them one after the other. */
    Exchange processAndStore(HeldJob lock) throws Exception {
        Exchange processed = processing(lock);
        return JobExchange.stayReason(processed) != null ? processed : storing(lock);
    }

    Exchange recording(HeldJob lock) throws Exception {
        return run("job-recording", lock);
    }

    Exchange notify(HeldJob lock) throws Exception {
        return run("job-notify", lock);
    }

    @Override
    public void close() {
        try {
            camel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    interface Advice {
        void apply(DefaultCamelContext camel) throws Exception;
    }

    /** The job would fail with this message; the cause is what the route caught. */
    static final class JobFailed extends Exception {
        JobFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
