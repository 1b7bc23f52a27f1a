package org.cdlib.mrt.ingestqueue.steps;

import java.util.List;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.services.Inventory;
import org.cdlib.mrt.ingestqueue.services.LocalIds;
import org.cdlib.mrt.ingestqueue.services.Minter;
import org.cdlib.mrt.ingestqueue.services.ServiceCall;
import org.cdlib.mrt.ingestqueue.services.Storage;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;

/**
 * The embedded defaults of the outside services (ZooKeeper-numbered minter, OCFL storage, the
 * local inventory database) as route steps: the {@code otherwise} branch of each service
 * sub-route, answering on the exchange as the HTTP calls' answer halves do.
 */
public final class LocalServices {
    private final Minter minter;
    private final Storage storage;
    private final Inventory inventory;
    private final LocalIds localIds;

    /** Any of them may be null when the configuration calls the Merritt service instead. */
    public LocalServices(Minter minter, Storage storage, Inventory inventory, LocalIds localIds) {
        this.minter = minter;
        this.storage = storage;
        this.inventory = inventory;
        this.localIds = localIds;
    }

    public void mint(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        exchange.setProperty(ServiceCall.RESULT, need(minter, "ingest.minter=local").mint(o.profile, o.described));
    }

    public void storageVersion(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        exchange.setProperty(
                ServiceCall.RESULT, need(storage, "ingest.storage=local").currentVersion(o.profile, o.ark));
    }

    public void store(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        List<String> ids = o.described.identifiers().localId();
        StoredVersion v = need(storage, "ingest.storage=local").store(o.profile, o.ark, o.wd.root(),
                exchange.getProperty(ServiceCall.MANIFEST, String.class), ids.isEmpty() ? null : String.join(";", ids),
                o.update, o.deletes, o.contentDigests);
        exchange.setProperty(ServiceCall.RESULT, v.version());
    }

    public void lookup(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        need(localIds, "the local inventory")
                .primaryFor(o.profile.id(), exchange.getProperty(ServiceCall.LOCAL_ID, String.class))
                .ifPresentOrElse(
                        a -> exchange.setProperty(ServiceCall.RESULT, a),
                        () -> exchange.removeProperty(ServiceCall.RESULT));
    }

    public void bind(Exchange exchange) throws Exception {
        ObjectInProcess o = ObjectInProcess.of(exchange);
        exchange.setProperty(ServiceCall.RESULT, need(localIds, "the local inventory").bind(o.profile.id(),
                exchange.getProperty(ServiceCall.LOCAL_ID, String.class), o.ark));
    }

    /** Recording's add to the local inventory (the job's files as recording listed them). */
    public void inventoryAdd(Exchange exchange) throws Exception {
        RecordStep.Recording r = RecordStep.Recording.of(exchange);
        need(inventory, "ingest.inventory=local").add(r.profile(), r.version(), r.localIds(), r.files());
    }

    /** The highest version the local inventory has of the object being recorded (0: none). */
    public void inventoryVersion(Exchange exchange) throws Exception {
        RecordStep.Recording r = RecordStep.Recording.of(exchange);
        exchange.setProperty(
                ServiceCall.RESULT,
                need(inventory, "ingest.inventory=local")
                        .currentVersion(r.version().ark()));
    }

    private static <T> T need(T service, String what) {
        if (service == null) {
            throw new IllegalStateException("this route calls " + what + ", which this configuration does not have");
        }
        return service;
    }
}
