package org.cdlib.mrt.ingestqueue.module;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.apache.camel.CamelContext;
import org.cdlib.mrt.ingestqueue.history.HandOver;
import org.cdlib.mrt.ingestqueue.profile.ProfileRegistry;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * What a {@link QueueModule} gets: the Camel context, the queue store (the only way to
 * ZooKeeper), the profiles, and the configuration (the service's {@code runtime/Configuration}:
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
        return property(key).map(v -> number(key, v, Integer::parseInt)).orElse(defaultValue);
    }

    public long longProperty(String key, long defaultValue) {
        return property(key).map(v -> number(key, v, Long::parseLong)).orElse(defaultValue);
    }

    public boolean booleanProperty(String key, boolean defaultValue) {
        return property(key).map(Boolean::parseBoolean).orElse(defaultValue);
    }

    /** A duration written as ISO-8601 ({@code PT30S}) or as milliseconds. */
    public Duration durationProperty(String key, Duration defaultValue) {
        return property(key)
                .map(v -> {
                    try {
                        return v.startsWith("P") || v.startsWith("p")
                                ? Duration.parse(v.toUpperCase())
                                : Duration.ofMillis(Long.parseLong(v));
                    } catch (RuntimeException e) {
                        throw new IllegalArgumentException(
                                key + " must be a duration (PT30S) or milliseconds, not '" + v + "'");
                    }
                })
                .orElse(defaultValue);
    }

    private static <T> T number(String key, String value, Function<String, T> parse) {
        try {
            return parse.apply(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, not '" + value + "'");
        }
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
