package org.cdlib.mrt.ingestqueue.module;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.camel.CamelContext;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * What a {@link QueueModule} gets: the Camel context, the queue store (the only way to
 * ZooKeeper), the profiles, and the configuration (application.properties, then system
 * properties and environment, as camel-main resolves them).
 */
public record QueueContext(CamelContext camel, QueueStore store, ProfileRegistry profiles) {

    /** The configured value of a key, or empty. */
    public Optional<String> property(String key) {
        return camel.getPropertiesComponent().resolveProperty(key).map(String::strip).filter(s -> !s.isEmpty());
    }

    public String property(String key, String defaultValue) {
        return property(key).orElse(defaultValue);
    }

    public int intProperty(String key, int defaultValue) {
        return property(key).map(Integer::parseInt).orElse(defaultValue);
    }

    public long longProperty(String key, long defaultValue) {
        return property(key).map(Long::parseLong).orElse(defaultValue);
    }

    public boolean booleanProperty(String key, boolean defaultValue) {
        return property(key).map(Boolean::parseBoolean).orElse(defaultValue);
    }

    /** A duration written as ISO-8601 ({@code PT30S}) or as milliseconds. */
    public Duration durationProperty(String key, Duration defaultValue) {
        return property(key).map(v -> v.startsWith("P") || v.startsWith("p") ? Duration.parse(v.toUpperCase())
                : Duration.ofMillis(Long.parseLong(v))).orElse(defaultValue);
    }

    /** The root of the jobs' working directories. */
    public Path ingestHome() {
        return store.ingestHome();
    }

    public <T> void bind(String name, T bean) {
        camel.getRegistry().bind(name, bean);
    }
}
