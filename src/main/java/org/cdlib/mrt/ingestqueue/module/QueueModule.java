package org.cdlib.mrt.ingestqueue.module;

import java.util.Map;

/**
 * A part of the service that binds its own beans (step processors, services, REST routes)
 * once the core is up. Modules are found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/org.cdlib.mrt.ingestqueue.module.QueueModule}) and bound before the
 * YAML routes of {@code routes/} are started, so the routes can name their beans.
 */
public interface QueueModule {

    /** Binds beans into {@code ctx.camel().getRegistry()} and may add Java routes. */
    void bind(QueueContext ctx) throws Exception;

    /**
     * Every bean {@link #bind} may bind: its name and its class (for a lambda, the interface it implements).
     * The route files are checked against these before anything starts (runtime/RouteCheck); a test
     * compares them with what a started service bound, so they cannot drift.
     */
    Map<String, Class<?>> beans();
}
