package org.cdlib.mrt.ingestqueue.config;

import static org.cdlib.mrt.ingestqueue.config.ValueKind.addresses;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.bool;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.bytes;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.connectString;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.duration;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.host;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.jdbcUrl;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.millis;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.number;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.path;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.port;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.text;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.url;
import static org.cdlib.mrt.ingestqueue.config.ValueKind.words;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;

/**
 * Every key the service reads — in its code, and in the {@code {{key:default}}} placeholders of {@code routes/}
 * — with what its value must be and its default. What each means is the README's "Configuration" table, which
 * a test keeps to these keys, one row each. Camel's own {@code camel.*} options are Camel's to check; the few
 * listed here are the ones this service reads or documents.
 */
public final class ConfigurationKeys {
    /** One key: the kind its value must be, its default ({@code null}: unset, or worked out at the start). */
    public record Key(String name, ValueKind kind, String defaultValue) {
    }

    private static final int MANY = Integer.MAX_VALUE;
    private static final Map<String, Key> KEYS = new LinkedHashMap<>();

    static {
        key("zookeeper.connect", connectString(), null);
        key("zookeeper.embedded.dir", path(), "./data/zookeeper");
        key("zookeeper.embedded.port", port(true), "2181");
        key("zookeeper.session-timeout", duration(), "PT30S");
        key("zookeeper.connection-timeout", duration(), "PT15S");

        key(Configuration.CONFIG_DIR, path(), null);
        key("ingest.home", path(), "./data/queue");
        key("ingest.host.id", text(), null);
        key("ingest.profiles", path(), "./profiles");
        key("ingest.profiles.reload", duration(), "PT5S");
        key("ingest.creation-chunk", number(1, 10_000), "100");

        key("ingest.batch.window", number(1, QueueLimits.MAX_OPEN_JOBS), "5000");
        key("ingest.queue.max-open-jobs", number(1, QueueLimits.MAX_OPEN_JOBS), "10000");
        key("ingest.batch.refill-delay", millis(), "1000");
        key("ingest.batch.max-manifest-bytes", bytes(1), "268435456");
        key("ingest.batch.read-threads", number(1, 1_000), "8");
        key("ingest.batch.reads-per-submitter", number(1, 1_000), "2");
        key("ingest.batch.retry-delay", millis(), "60000");
        key("ingest.queue.max-open-batches", number(1, MANY), "10000");
        key("ingest.queue.max-open-batches-per-depositor", number(1, QueueLimits.LISTED_CHILDREN), "1000");

        key("ingest.concurrency.pending", number(1, 10_000), "2");
        key("ingest.concurrency.estimating", number(1, 10_000), "4");
        key("ingest.concurrency.provisioning", number(1, 10_000), "2");
        key("ingest.concurrency.downloading", number(1, 10_000), "2");
        key("ingest.concurrency.processing", number(1, 10_000), "2");
        key("ingest.concurrency.storing", number(1, 10_000), "2");
        key("ingest.concurrency.recording", number(1, 10_000), "2");
        key("ingest.concurrency.notify", number(1, 10_000), "2");
        key("ingest.concurrency.batch-pending", number(1, 10_000), "4");
        key("ingest.concurrency.batch-reporting", number(1, 10_000), "1");
        key("ingest.concurrency.batch-update-reporting", number(1, 10_000), "1");
        key("ingest.handoff.wait", millis(), "500");
        key("ingest.provisioning.retry-delay", millis(), "30000");
        key("ingest.processing.retry-delay", millis(), "2000");

        key("ingest.merritt.neighbours", bool(), "true");
        key("ingest.merritt.status-grace", duration(), "PT60S");
        key("ingest.merritt.batch-period", millis(), "5000");
        key("ingest.merritt.batch-delay", millis(), "2000");

        key("ingest.reporting.sweep-period", millis(), "60000");
        key("ingest.reporting.sweep-delay", millis(), "10000");
        key("ingest.cleanup.retention", duration(), "P7D");
        key("ingest.cleanup.failed-retention", duration(), "P30D");
        key("ingest.cleanup.period", millis(), "3600000");
        key("ingest.cleanup.delay", millis(), "60000");
        key("ingest.fsck.period", millis(), "600000");
        key("ingest.fsck.delay", millis(), "120000");
        key("ingest.fsck.batches-per-pass", number(1, MANY), "200");
        key("ingest.search.index-period", millis(), "2000");
        key("ingest.search.index-delay", millis(), "1000");
        key("ingest.holds.release-period", millis(), "10000");
        key("ingest.holds.release-delay", millis(), "5000");

        key("ingest.history.url", jdbcUrl(), null);
        key("ingest.history.user", text(), null);
        key("ingest.history.password", text(), null);
        key("ingest.history.keep-jobs", number(0, Long.MAX_VALUE), "10000");
        key("ingest.history.retention", duration(), null);

        key("ingest.download.connect-timeout", duration(), "PT10S");
        key("ingest.download.read-timeout", duration(), "PT5M");
        key("ingest.download.retries", number(0, 100), "3");
        key("ingest.download.backoff", duration(), "PT1S");
        key("ingest.download.parallelism", number(1, 1_000), "4");
        key("ingest.download.allow-file-urls", bool(), "false");
        key("ingest.download.max-header-count", number(1, MANY), "100");
        key("ingest.download.max-line-length", number(256, MANY), "8192");
        key("ingest.download.probe-timeout", duration(), "PT30S");
        key("ingest.download.min-free-percent", number(0, 99), "5");
        key("ingest.download.min-rate", number(0, Long.MAX_VALUE), "1024");
        key("ingest.download.rate-window", duration(), "PT1M");
        key("ingest.fetch.allow", addresses(), null);
        key("ingest.fetch.connections-per-host", number(1, MANY), null);
        key("ingest.fetch.probe-connections-per-host", number(1, MANY), null);
        key("ingest.container.max-bytes", bytes(1), "107374182400");
        key("ingest.container.max-entries", number(1, MANY), "100000");
        key("ingest.container.max-ratio", number(1, MANY), "100");
        key("ingest.estimate.large-bytes", bytes(0), "10737418240");
        key("ingest.estimate.large-priority", number(0, 99), "90");
        key("ingest.provisioning.max-used-percent", number(1, 100), "80");

        key("ingest.services.max-header-count", number(1, MANY), "100");
        key("ingest.services.max-line-length", number(256, MANY), "8192");
        key("ingest.services.max-answer-bytes", bytes(1), "16777216");
        key("ingest.services.retries", number(0, 100), "3");
        key("ingest.services.retry-delay", millis(), "1000");
        key("camel.component.http.connect-timeout", millis(), "10000");
        key("camel.component.http.response-timeout", millis(), "120000");
        key("camel.component.http.so-timeout", millis(), "120000");

        key("ingest.minter", words("local", "ezid"), "local");
        key("ingest.minter.shoulder", text(), "ark:/99999/fk4");
        key("ingest.ezid.user", text(), null);
        key("ingest.ezid.password", text(), null);
        key("ingest.ezid.target", url(), null);
        key("ingest.ezid.settle", duration(), "PT30S");
        key("ingest.storage", words("local", "http"), "local");
        key("ingest.storage.local.root", path(), "./data/storage");
        key("ingest.storage.settle", duration(), "PT60S");
        key("ingest.files.base-url", url(), null);
        key("ingest.files.signing-key", text(), null);
        key("ingest.files.url-ttl", duration(), "P1D");
        key("ingest.status.base-url", url(), null);
        key("ingest.status.signing-key", text(), null);
        key("ingest.inventory", words("local", "http"), "local");
        key("ingest.inventory.url", url(), null);
        key("ingest.inventory.settle", duration(), "PT60S");
        key("ingest.inventory.local.url", jdbcUrl(), "jdbc:h2:file:./data/inventory/inventory");
        key("ingest.inventory.local.user", text(), null);
        key("ingest.inventory.local.password", text(), null);
        key("ingest.inventory.local.pool-size", number(1, 1_000), "8");

        key("ingest.mail.smtp.host", host(), null);
        key("ingest.mail.smtp.port", port(false), "25");
        key("ingest.mail.smtp.starttls", bool(), "false");
        key("ingest.mail.smtp.tls", bool(), "false");
        key("ingest.mail.smtp.user", text(), null);
        key("ingest.mail.smtp.password", text(), null);
        key("ingest.mail.from", text(), "merritt-ingest@localhost");
        key("ingest.mail.outbox", path(), "./data/outbox");

        key("ingest.http.enabled", bool(), "true");
        key("ingest.http.host", host(), "0.0.0.0");
        key("ingest.http.port", port(true), "8080");
        key("ingest.http.idle-timeout", duration(), "PT60S");
        key("ingest.http.header-timeout", duration(), "PT20S");
        key("ingest.http.min-body-rate", number(0, Long.MAX_VALUE), "1024");
        key("ingest.http.max-connections-per-address", number(1, MANY), "64");
        key("ingest.http.trusted-proxies", addresses(), null);
        key("ingest.api.users", text(), null);
        key("ingest.api.plain-passwords", words("warn", "refuse"), "warn");
        key("ingest.api.max-upload", bytes(1), "10737418240");
        key("ingest.api.max-upload-per-user", bytes(0), "0");
        key("ingest.api.upload-window", duration(), "P1D");
        key("ingest.api.session-idle", duration(), "PT1H");
        key("ingest.api.login-failures-per-user", number(1, MANY), "10");
        key("ingest.api.login-failures-per-address", number(1, MANY), "20");

        key("camel.main.routes-include-pattern", text(), null);
        key("camel.main.routes-exclude-pattern", text(), null);
        key("camel.main.shutdown-timeout", number(0, MANY), "60");
    }

    private ConfigurationKeys() {
    }

    private static void key(String name, ValueKind kind, String defaultValue) {
        if (KEYS.put(name, new Key(name, kind, defaultValue)) != null) {
            throw new IllegalStateException("key listed twice: " + name);
        }
    }

    /** Every key, in the README's order. */
    public static Map<String, Key> all() {
        return Collections.unmodifiableMap(KEYS);
    }

    public static Optional<Key> find(String name) {
        return Optional.ofNullable(KEYS.get(name));
    }
}
