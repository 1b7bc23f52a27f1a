package org.cdlib.mrt.ingestqueue.steps;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.camel.component.http.HttpComponent;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.queue.space.Counters;
import org.cdlib.mrt.ingestqueue.services.AnswerBounds;
import org.cdlib.mrt.ingestqueue.services.EzidMinter;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.HttpInventory;
import org.cdlib.mrt.ingestqueue.services.HttpStorage;
import org.cdlib.mrt.ingestqueue.services.LocalMinter;
import org.cdlib.mrt.ingestqueue.services.OcflStorage;
import org.cdlib.mrt.ingestqueue.services.SendDeadline;
import org.cdlib.mrt.ingestqueue.services.ServiceHeaders;
import org.cdlib.mrt.ingestqueue.services.Storage;
import org.cdlib.mrt.ingestqueue.services.StorageAddresses;

/**
 * Binds the beans {@code routes/processing.yaml}, {@code storing.yaml}, {@code recording.yaml} and
 * {@code notify.yaml} name: the domain steps ({@code identifiersStep}, {@code processStep},
 * {@code storeStep}, {@code recordStep}, {@code notifyStep}), the request and answer halves of
 * the Merritt calls ({@code ezid}, {@code storage}, {@code inventory}) and the embedded defaults
 * ({@code localServices}). Which branch a route takes is the configuration's: {@code ingest.minter} (local | ezid),
 * {@code ingest.storage} (local | http), {@code ingest.inventory} (local | http). See README "Configuration".
 */
public final class ProcessingModule implements QueueModule {

    @Override
    public Map<String, Class<?>> beans() {
        return Map.ofEntries(Map.entry("inventory", HttpInventory.class), Map.entry("ezid", EzidMinter.class),
                Map.entry("storage", HttpStorage.class), Map.entry("localIndex", H2Inventory.class),
                Map.entry("localStorage", OcflStorage.class), Map.entry("localServices", LocalServices.class),
                Map.entry("identifiersStep", IdentifiersStep.class), Map.entry("processStep", ProcessStep.class),
                Map.entry("storeStep", StoreStep.class), Map.entry("recordStep", RecordStep.class),
                Map.entry("notifyStep", NotifyStep.class));
    }

    @Override
    public void bind(QueueContext ctx) throws Exception {
        String minterKind = ctx.property("ingest.minter", "local");
        String storageKind = ctx.property("ingest.storage", "local");
        String inventoryKind = ctx.property("ingest.inventory", "local");
        LocalMinter minter =
                switch (minterKind) {
                    case "local" ->
                        new LocalMinter(
                                new Counters(ctx.store().client()),
                                ctx.property("ingest.minter.shoulder", "ark:/99999/fk4"));
                    case "ezid" -> null;
                    default ->
                        throw new IllegalArgumentException("ingest.minter must be local or ezid, not " + minterKind);
                };
        Storage local = switch (storageKind) {
            case "local" -> new OcflStorage(Path.of(ctx.property("ingest.storage.local.root", "./data/storage")));
            case "http" -> null;
            default -> throw new IllegalArgumentException("ingest.storage must be local or http, not " + storageKind);
        };
        HttpStorage merrittStorage = new HttpStorage(ctx.property("ingest.files.base-url",
                "http://localhost:" + ctx.property("ingest.http.port", "8080") + "/files"));
        StorageAddresses addresses = local != null ? local : merrittStorage;
        H2Inventory index = new H2Inventory(
                ctx.property("ingest.inventory.local.url", "jdbc:h2:file:./data/inventory/inventory"),
                ctx.property("ingest.inventory.local.user").orElse(null),
                ctx.property("ingest.inventory.local.password").orElse(null),
                ctx.intProperty("ingest.inventory.local.pool-size", H2Inventory.DEFAULT_POOL_SIZE));
        boolean merrittInventory =
                switch (inventoryKind) {
                    case "local" -> false;
                    case "http" -> true;
                    default ->
                        throw new IllegalArgumentException(
                                "ingest.inventory must be local or http, not " + inventoryKind);
                };
        if (merrittInventory && ctx.property("ingest.inventory.url").isEmpty()) {
            throw new IllegalArgumentException("ingest.inventory=http needs ingest.inventory.url");
        }
        // every bean a route names exists, whichever branch this configuration takes
        ctx.bind("inventory", new HttpInventory(ctx.property("ingest.inventory.url", "")));
        ctx.bind("ezid", new EzidMinter(ctx.property("ingest.ezid.user").orElse(null),
                ctx.property("ingest.ezid.password").orElse(null), ctx.property("ingest.ezid.target").orElse(null)));
        ctx.bind("storage", merrittStorage);
        ctx.bind("localIndex", index);
        if (local != null) {
            ctx.bind("localStorage", local);
        }
        // the local-id index: Merritt inventory's own calls when inventory is Merritt's, else the local database
        ctx.bind("localServices", new LocalServices(minter, local, merrittInventory ? null : index, index));
        ctx.bind("identifiersStep", new IdentifiersStep(ctx.store(),
                ctx.durationProperty("ingest.ezid.settle", Duration.ofSeconds(30))));
        ctx.bind("processStep", new ProcessStep(ctx.store(), ctx.profiles()));
        ctx.bind("storeStep", new StoreStep(ctx.store(), ctx.profiles(), addresses,
                ctx.durationProperty("ingest.storage.settle", Duration.ofSeconds(60))));
        ctx.bind("recordStep", new RecordStep(ctx.store(), ctx.profiles(), index, local, merrittInventory,
                ctx.durationProperty("ingest.inventory.settle", Duration.ofSeconds(60))));
        ctx.bind("notifyStep", new NotifyStep(ctx.store(), ctx.profiles()));
        // the calls carry only the headers their request halves set (camel.component.http.header-filter-strategy)
        HttpComponent http = ctx.camel().getComponent("http", HttpComponent.class);
        http.setHeaderFilterStrategy(new ServiceHeaders());
        // HttpClient's own retry sends a request answered 503 or 429 again after a second, POST
        // included (it does not ask whether the call is idempotent): a mint or a storage add was
        // then sent twice. Only routes/error-handling.yaml retries, and only what is repeatable.
        http.setAutomaticRetriesDisabled(true);
        // every answer bounded (head, body, time): one connection manager, its connections' heads limited
        long responseTimeout = ctx.longProperty("camel.component.http.response-timeout", 120_000L);
        AnswerBounds bounds = new AnswerBounds(ctx.intProperty("ingest.services.max-header-count", 100),
                ctx.intProperty("ingest.services.max-line-length", 8192),
                ctx.longProperty("ingest.services.max-answer-bytes", 16L * 1024 * 1024),
                Duration.ofMillis(responseTimeout + ctx.longProperty("camel.component.http.connect-timeout", 10_000L)));
        http.setClientConnectionManager(bounds.connections(http.getMaxTotalConnections(), http.getConnectionsPerRoute(),
                ctx.longProperty("camel.component.http.so-timeout", responseTimeout)));
        SendDeadline deadline = new SendDeadline(); // a fenced call goes out in time or not at all
        http.setHttpClientConfigurer(b -> {
            deadline.configureHttpClient(b);
            bounds.configureHttpClient(b);
        });
    }
}
