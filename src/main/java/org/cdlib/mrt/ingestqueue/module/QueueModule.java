package org.cdlib.mrt.ingestqueue.module;

/**
 * A part of the service that binds its own beans (step processors, services, REST routes)
 * once the core is up. Modules are found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/org.cdlib.mrt.ingestqueue.module.QueueModule}) and bound before the
 * YAML routes of {@code routes/} are started, so the routes can name their beans.
 */
public interface QueueModule {

    /** Binds beans into {@code ctx.camel().getRegistry()} and may add Java routes. */
    void bind(QueueContext ctx) throws Exception;
}
