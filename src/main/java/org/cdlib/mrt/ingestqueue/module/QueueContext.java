package org.cdlib.mrt.ingestqueue.module;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.camel.CamelContext;
import org.cdlib.mrt.ingestqueue.history.HandOver;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.config.ConfigurationKeys;
import org.cdlib.mrt.ingestqueue.config.ValueKind;

/**
 * What a {@link QueueModule} gets: the Camel context, the queue store (the only way to
 * ZooKeeper), the profiles, and the configuration (the service's {@code config/Configuration}:
 * the environment over {@code -D} over the working directory's application.properties over the jar's).
 * A value that is not what its key needs stops the start naming the key.
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
        return property(key).map(v -> Math.toIntExact(read(key, v, ValueKind.number(Integer.MIN_VALUE,
                Integer.MAX_VALUE), Long.class))).orElse(defaultValue);
    }

    public long longProperty(String key, long defaultValue) {
        return property(key).map(v -> read(key, v, ValueKind.number(Long.MIN_VALUE, Long.MAX_VALUE), Long.class))
                .orElse(defaultValue);
    }

    /** {@code true} or {@code false}, nothing else. */
    public boolean booleanProperty(String key, boolean defaultValue) {
        return property(key).map(v -> read(key, v, ValueKind.bool(), Boolean.class)).orElse(defaultValue);
    }

    /** A duration written as ISO-8601 ({@code PT30S}) or as milliseconds. */
    public Duration durationProperty(String key, Duration defaultValue) {
        return property(key).map(v -> read(key, v, ValueKind.duration(), Duration.class)).orElse(defaultValue);
    }

    /**
     * The value as its key's kind in {@link ConfigurationKeys} reads it (its range too), else as {@code kind}
     * does: an error names the key, the value and what is accepted, as the check at the start does.
     */
    private static <T> T read(String key, String value, ValueKind kind, Class<T> type) {
        Object catalogued = ConfigurationKeys.find(key).map(k -> k.kind().read(key, value)).orElse(null);
        return type.isInstance(catalogued) ? type.cast(catalogued) : type.cast(kind.read(key, value));
    }

    /**
     * Finished work's way into history (the service binds it at the start); null in a test that
     * binds modules without one.
     */
    public HandOver handOver() {
        return camel.getRegistry().lookupByNameAndType("handOver", HandOver.class);
    }

    /** The root of the jobs' working directories. */
    public Path ingestHome() {
        return store.ingestHome();
    }

    public <T> void bind(String name, T bean) {
        camel.getRegistry().bind(name, bean);
    }
}
