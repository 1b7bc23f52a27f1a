package org.cdlib.mrt.ingestqueue.steps;

import java.nio.file.Path;
import java.time.Duration;
import org.cdlib.mrt.ingestqueue.QueueContext;
import org.cdlib.mrt.ingestqueue.QueueModule;
import org.cdlib.mrt.ingestqueue.queue.Counters;
import org.cdlib.mrt.ingestqueue.services.Callback;
import org.cdlib.mrt.ingestqueue.services.EzidMinter;
import org.cdlib.mrt.ingestqueue.services.H2Inventory;
import org.cdlib.mrt.ingestqueue.services.HttpInventory;
import org.cdlib.mrt.ingestqueue.services.LocalIds;
import org.cdlib.mrt.ingestqueue.services.MerrittLocalIds;
import org.cdlib.mrt.ingestqueue.services.HttpService;
import org.cdlib.mrt.ingestqueue.services.HttpStorage;
import org.cdlib.mrt.ingestqueue.services.Inventory;
import org.cdlib.mrt.ingestqueue.services.LocalMinter;
import org.cdlib.mrt.ingestqueue.services.Minter;
import org.cdlib.mrt.ingestqueue.services.OcflStorage;
import org.cdlib.mrt.ingestqueue.services.Storage;

/**
 * Binds {@code processStep}, {@code recordStep} and {@code notifyStep} with the outside services
 * the configuration chooses: {@code ingest.minter} (local | ezid), {@code ingest.storage}
 * (local | http), {@code ingest.inventory} (local | http). See README "Configuration".
 */
public final class ProcessingModule implements QueueModule {

    @Override
    public void bind(QueueContext ctx) throws Exception {
        Duration timeout = ctx.durationProperty("ingest.services.timeout", Duration.ofMinutes(2));
        int retries = ctx.intProperty("ingest.services.retries", 3);
        Duration backoff = ctx.durationProperty("ingest.services.backoff", Duration.ofSeconds(1));
        java.util.function.Function<String, HttpService> http = name ->
                new HttpService(name, Duration.ofSeconds(10), timeout, retries, backoff);

        Minter minter = switch (ctx.property("ingest.minter", "local")) {
            case "local" -> new LocalMinter(new Counters(ctx.store()), ctx.property("ingest.minter.shoulder", "ark:/99999/fk4"));
            case "ezid" -> new EzidMinter(http.apply("EZID"), ctx.property("ingest.ezid.user").orElse(null),
                    ctx.property("ingest.ezid.password").orElse(null), ctx.property("ingest.ezid.target").orElse(null));
            default -> throw new IllegalArgumentException("ingest.minter must be local or ezid");
        };
        Storage storage = switch (ctx.property("ingest.storage", "local")) {
            case "local" -> new OcflStorage(Path.of(ctx.property("ingest.storage.local.root", "./data/storage")));
            case "http" -> new HttpStorage(http.apply("storage"), ctx.property("ingest.files.base-url",
                    "http://localhost:" + ctx.property("ingest.http.port", "8080") + "/files"));
            default -> throw new IllegalArgumentException("ingest.storage must be local or http");
        };
        H2Inventory local = new H2Inventory(ctx.property("ingest.inventory.local.url", "jdbc:h2:file:./data/inventory/inventory"),
                ctx.property("ingest.inventory.local.user").orElse(null), ctx.property("ingest.inventory.local.password").orElse(null));
        Inventory inventory = switch (ctx.property("ingest.inventory", "local")) {
            case "local" -> local;
            case "http" -> new HttpInventory(http.apply("inventory"), ctx.property("ingest.inventory.url")
                    .orElseThrow(() -> new IllegalArgumentException("ingest.inventory=http needs ingest.inventory.url")));
            default -> throw new IllegalArgumentException("ingest.inventory must be local or http");
        };
        ctx.bind("storage", storage);
        ctx.bind("inventory", local);
        // the local-id index: Merritt inventory's own calls when inventory is Merritt's, else the local database
        LocalIds localIds = inventory instanceof HttpInventory
                ? new MerrittLocalIds(http.apply("inventory"), ctx.property("ingest.inventory.url").orElseThrow(),
                        id -> ctx.profiles().find(id).orElse(null))
                : local;
        ctx.bind("processStep", new ProcessStep(ctx.store(), ctx.profiles(), minter, storage, localIds));
        ctx.bind("recordStep", new RecordStep(ctx.store(), ctx.profiles(), inventory, local, storage));
        ctx.bind("notifyStep", new NotifyStep(ctx.store(), ctx.profiles(), new Callback(http.apply("callback"))));
    }
}
