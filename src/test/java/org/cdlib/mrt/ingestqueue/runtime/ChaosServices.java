package org.cdlib.mrt.ingestqueue.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cdlib.mrt.ingestqueue.runtime.ChaosFaults.Moment;
import org.cdlib.mrt.ingestqueue.runtime.ChaosFaults.Shot;
import org.cdlib.mrt.ingestqueue.runtime.ChaosObjects.ChaosObject;

/**
 * EZID, Merritt storage and inventory (with its local-id calls), the callback receiver and the
 * payload server of a chaos run, counting every call by its key — never as a set: mints by the
 * object they were asked for (the ERC's {@code what}), EZID updates, storage adds and inventory
 * adds by ARK (storage adds also by the object's local id), local-id binds by local id, callbacks
 * by {@code Idempotency-Key}. Inventory answers a bound local id with its ARK and keeps the first
 * binding, as an index with a unique key does; its add and its {@code /current/<ark>} read behave
 * as mrt-inventory's (checkVersion: an add of the version it has makes no record). At each
 * risky moment it asks the faults whether this request is the one that fires the armed fault.
 */
final class ChaosServices implements AutoCloseable {
    static final String OWNER = "ark:/99999/fk4owner";
    private static final Pattern WHAT = Pattern.compile("what: Object (\\d+)");

    final HttpServer server;
    final List<ChaosObject> objects;
    private final Map<String, Integer> objectOfLocalId = new HashMap<>();
    /** The batch manifests by name ({@code batch.checkm}, then {@code batch-1.checkm} … for the reserve batches). */
    final Map<String, String> manifests = new ConcurrentHashMap<>();
    /** How many of {@link #objects} were submitted: the first batch's and the reserve batches' so far. */
    volatile int submitted;
    volatile ChaosFaults faults;
    /** Who sent a request and when ("b@42.0s"), for the failure messages. */
    volatile Function<HttpExchange, String> sender = ex -> "?";
    /** Names the session a storage manifest's URLs were signed under (" under lease … of b#2"). */
    volatile UnaryOperator<String> lease = manifest -> "";

    final AtomicInteger mints = new AtomicInteger();
    final Map<Integer, List<String>> mintedFor = new ConcurrentHashMap<>();
    final Map<String, String> mintedBy = new ConcurrentHashMap<>();
    final List<String> unattributedMints = new CopyOnWriteArrayList<>();
    final Map<String, List<String>> ezidUpdates = new ConcurrentHashMap<>();
    /** Each ARK's metadata as its last EZID update set it (ANVL), for EZID's GET. */
    final Map<String, String> described = new ConcurrentHashMap<>();
    final Map<String, Integer> versions = new ConcurrentHashMap<>();
    final Map<String, List<String>> storageAdds = new ConcurrentHashMap<>();
    final Map<Integer, List<String>> storageAddsOf = new ConcurrentHashMap<>();
    final AtomicInteger storageAddsDropped = new AtomicInteger();
    /** Adds whose files storage could not fetch (a host refused them, or none answered): no version made. */
    final List<String> storageAddsRefused = new CopyOnWriteArrayList<>();
    /** The adds a {@code STOP_HELD} fault held on the wire, and how they landed. */
    final List<String> heldAdds = new CopyOnWriteArrayList<>();
    private final Map<String, HeldAdd> held = new ConcurrentHashMap<>();
    /** Storage's fetch of an add's files; null: adds are taken without fetching. */
    volatile ChaosStorageFetch fetch;
    final Map<String, List<String>> inventoryAdds = new ConcurrentHashMap<>();
    /** Inventory's records per ARK (an add of a version it has, with checkVersion, is none). */
    final Map<String, Integer> inventoryRecords = new ConcurrentHashMap<>();
    /** The highest version inventory has recorded per ARK: what {@code GET /inv/current/<ark>} answers. */
    final Map<String, Integer> inventoryVersions = new ConcurrentHashMap<>();
    final Map<String, String> bindings = new ConcurrentHashMap<>();
    final Map<String, List<String>> bindCalls = new ConcurrentHashMap<>();
    final AtomicInteger lookups = new AtomicInteger();
    final Map<String, List<String>> callbacks = new ConcurrentHashMap<>();
    /** Each callback key's sends: which process, when ({@link System#nanoTime}). */
    final Map<String, List<Send>> callbackSends = new ConcurrentHashMap<>();
    /** EZID updates per ARK with their senders' pids and arrival times (a repeat is judged by the faults). */
    final Map<String, List<Send>> ezidSends = new ConcurrentHashMap<>();
    final Map<String, CopyOnWriteArrayList<String>> callbackKeysOf = new ConcurrentHashMap<>();
    final Map<Integer, AtomicInteger> downloads = new ConcurrentHashMap<>();

    ChaosServices(List<ChaosObject> objects) throws IOException {
        this.objects = objects;
        objects.forEach(o -> o.localIds().forEach(id -> objectOfLocalId.put(id, o.index())));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", ex -> {
            try {
                handle(ex);
            } catch (Exception e) {
                try {
                    answer(ex, 500, e.toString());
                } catch (IOException | RuntimeException gone) {
                    ex.close();
                }
            }
        });
        server.start();
    }

    /** The objects of the batches submitted so far. */
    List<ChaosObject> submittedObjects() {
        return objects.subList(0, submitted);
    }

    /** Points the services at the faults (which name each request's sender) and at the instances' files. */
    void serve(ChaosFaults faults, ChaosInstances instances) {
        faults.serverPort = server.getAddress().getPort();
        this.faults = faults;
        sender = faults::sender;
        fetch = new ChaosStorageFetch(base() + "/files", instances::bases);
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws Exception {
        String path = ex.getRequestURI().getRawPath();
        String method = ex.getRequestMethod();
        byte[] body = ex.getRequestBody().readAllBytes();
        if (faults != null && faults.gate(ex)) {
            ex.close(); // its sender is being killed: the request never arrived
            return;
        }
        String text = new String(body, StandardCharsets.UTF_8);
        if (path.startsWith("/data/batch") && manifests.containsKey(path.substring("/data/".length()))) {
            answer(ex, 200, manifests.get(path.substring("/data/".length())));
        } else if (path.startsWith("/data/f")) {
            payload(ex, method, Integer.parseInt(path.substring("/data/f".length(), path.indexOf('.'))));
        } else if (method.equals("POST") && path.startsWith("/ezid/shoulder/")) {
            mint(ex, text);
        } else if (method.equals("POST") && path.startsWith("/id/")) {
            String ark = decode(path.substring("/id/".length()));
            call(ezidUpdates, ark, ex);
            ChaosFaults f = faults;
            ezidSends.computeIfAbsent(ark, k -> new CopyOnWriteArrayList<>())
                    .add(new Send(f == null ? -1 : f.requester(ex), sender.apply(ex), System.nanoTime()));
            described.put(ark, text);
            answer(ex, 200, "success: " + ark);
        } else if (method.equals("GET") && path.startsWith("/id/")) {
            // as EZID: the identifier's metadata, what its last update set (a probe, not counted as an update)
            String ark = decode(path.substring("/id/".length()));
            answer(
                    ex,
                    200,
                    "success: " + ark + "\n" + described.getOrDefault(ark, "_target: https://ezid.example/" + ark));
        } else if (method.equals("GET") && path.startsWith("/store/state/")) {
            Integer v = versions.get(decode(last(path)));
            answer(ex, v == null ? 404 : 200, v == null ? "" : "{\"versionState\":{\"currentVersion\":" + v + "}}");
        } else if (method.equals("POST") && (path.startsWith("/store/add/") || path.startsWith("/store/update/"))) {
            storageAdd(ex, decode(last(path)), form(text));
        } else if (method.equals("POST") && path.equals("/inv/add")) {
            int i = text.indexOf("/manifest/");
            String ark = i < 0 ? "?" : decode(last(text.substring(i, text.indexOf('\r', i))));
            if (!shot(Moment.INVENTORY_ADD_ARRIVED, ex, objectOfArk(ark))) {
                call(inventoryAdds, ark, ex);
                inventoryAdd(ex, ark, text);
            }
        } else if (method.equals("GET") && path.startsWith("/inv/current/")) {
            // as Merritt's inventory (InvService.getCurrent): 200 with the highest version recorded, 0 for none
            String ark = decode(path.substring("/inv/current/".length()));
            answer(ex, 200, "{\"invv:versionsState\":{\"invv:objectID\":\"" + ark + "\",\"invv:currentVersion\":"
                    + inventoryVersions.getOrDefault(ark, 0) + "}}");
        } else if (path.startsWith("/inv/primary/")) {
            localIds(ex, method, path.substring("/inv/primary/".length()).split("/"));
        } else if (method.equals("POST") && path.startsWith("/cb/mc/")) {
            String jid = path.substring("/cb/mc/".length());
            String key = String.valueOf(ex.getRequestHeaders().getFirst("Idempotency-Key"));
            call(callbacks, key, ex);
            ChaosFaults f = faults;
            callbackSends.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
                    .add(new Send(f == null ? -1 : f.requester(ex), sender.apply(ex), System.nanoTime()));
            callbackKeysOf.computeIfAbsent(jid, k -> new CopyOnWriteArrayList<>()).addIfAbsent(key);
            answer(ex, 200, "{}");
        } else {
            answer(ex, 404, "no " + method + " " + path);
        }
    }

    /** One call: the sending process ({@code pid}, negative when unknown), "b@42.0s", and when it arrived. */
    record Send(long pid, String who, long nanos) {
    }

    private void payload(HttpExchange ex, String method, int i) throws IOException {
        ChaosObject o = objects.get(i);
        if (method.equals("HEAD")) {
            ex.getResponseHeaders().set("Content-Length", String.valueOf(o.content().length));
            ex.sendResponseHeaders(200, -1);
            ex.close();
            return;
        }
        count(downloads, i);
        if (shot(Moment.DOWNLOAD_ARRIVED, ex, i)) {
            return;
        }
        Shot answered = at(Moment.DOWNLOAD_ANSWERED, ex, i);
        ex.sendResponseHeaders(200, o.content().length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(o.content());
        }
        answered.fire();
    }

    private void mint(HttpExchange ex, String body) throws IOException {
        String ark = "ark:/99999/fk4c" + mints.incrementAndGet();
        Matcher m = WHAT.matcher(body);
        int i = m.find() ? Integer.parseInt(m.group(1)) : -1;
        mintedBy.put(ark, sender.apply(ex));
        if (i < 0) {
            unattributedMints.add(ark + " for " + body.replace('\n', ' '));
        } else {
            mintedFor.computeIfAbsent(i, k -> new CopyOnWriteArrayList<>()).add(ark);
        }
        Shot answered = at(Moment.MINT_ANSWERED, ex, i);
        answer(ex, 201, "success: " + ark);
        answered.fire();
    }

    private void storageAdd(HttpExchange ex, String ark, Map<String, String> form)
            throws IOException, InterruptedException {
        String localIds = form.getOrDefault("local-identifier", "");
        int i = objectOfLocalId.getOrDefault(localIds.split(";")[0], -1);
        Shot arrived = at(Moment.STORAGE_ADD_ARRIVED, ex, i);
        if (arrived.fire()) {
            ex.close();
            storageAddsDropped.incrementAndGet(); // its sender died before storage took it
            return;
        }
        HeldAdd waiting = held.get(ark);
        if (waiting != null && !(arrived instanceof ChaosFaults.Held)) {
            // the add of the host that took the job over: the held one lands first, as if the network had delayed it
            waiting.otherArrived.countDown();
            waiting.landed.await(30, TimeUnit.SECONDS);
        }
        if (arrived instanceof ChaosFaults.Held) {
            // on the wire while its sender is paused: it lands the moment another host, which took the job over and
            // found no version, sends its own add (without a fence, two versions)
            HeldAdd h = new HeldAdd();
            held.put(ark, h);
            try {
                boolean came = h.otherArrived.await(90, TimeUnit.SECONDS);
                heldAdds.add(ark
                        + (came
                                ? " landed as another host's add of it arrived"
                                : " landed with no other add of it in 90 s"));
                applyAdd(ex, ark, form, i);
            } finally {
                held.remove(ark);
                h.landed.countDown();
            }
            return;
        }
        applyAdd(ex, ark, form, i);
    }

    /** An add held on the wire, and the add it waits for. */
    private static final class HeldAdd {
        final CountDownLatch otherArrived = new CountDownLatch(1);
        final CountDownLatch landed = new CountDownLatch(1);
    }

    /** Storage's add once it arrived: the files fetched, then the version made and answered. */
    private void applyAdd(HttpExchange ex, String ark, Map<String, String> form, int i)
            throws IOException, InterruptedException {
        String refused = fetch == null ? null : fetch.fetch(form.getOrDefault("manifest", ""));
        if (refused != null) {
            storageAddsRefused.add(ark + " from " + sender.apply(ex) + lease.apply(form.getOrDefault("manifest", ""))
                    + ": " + refused);
            answer(ex, 500, "could not fetch the object's files: " + refused);
            return;
        }
        storageAdds.computeIfAbsent(ark, k -> new CopyOnWriteArrayList<>())
                .add(sender.apply(ex) + lease.apply(form.getOrDefault("manifest", "")));
        storageAddsOf.computeIfAbsent(i, k -> new CopyOnWriteArrayList<>()).add(ark);
        int v = versions.merge(ark, 1, Integer::sum);
        if (shot(Moment.STORAGE_ADD_APPLIED, ex, i)) {
            return; // stored; the answer is lost with its sender
        }
        Shot answered = at(Moment.STORAGE_ADD_ANSWERED, ex, i);
        answer(ex, 200, "{\"versionState\":{\"identifier\":\"" + ark + "\",\"versionID\":" + v + "}}");
        answered.fire();
    }

    /**
     * As Merritt's inventory ({@code SaveObject.process} / {@code checkVersion}): the version is the
     * manifest's current one (storage's); with {@code checkVersion}, an add of the version it has
     * makes no record, one behind it is refused (400); otherwise the version is recorded. The
     * record is made before the answer, which a kill may lose ({@code INVENTORY_ADD_APPLIED}).
     */
    private void inventoryAdd(HttpExchange ex, String ark, String text) throws IOException {
        boolean checked = Pattern.compile("name=\"checkVersion\"\\r?\\n(?:[^\\r\\n]+\\r?\\n)*\\r?\\ntrue\\r?\\n")
                .matcher(text)
                .find();
        int map = versions.getOrDefault(ark, 0);
        int db = inventoryVersions.getOrDefault(ark, 0);
        if (checked && db > map) {
            answer(ex, 400, "SaveObject-checkVersion - db version count exceeds passed map version: " + ark);
            return;
        }
        if (!(checked && db == map)) {
            inventoryVersions.put(ark, map);
            inventoryRecords.merge(ark, 1, Integer::sum);
        }
        if (shot(Moment.INVENTORY_ADD_APPLIED, ex, objectOfArk(ark))) {
            return; // recorded; the answer is lost with its sender
        }
        answer(ex, 200, "{\"invp:invProcessState\":{\"invp:objectID\":\"" + ark + "\"}}");
    }

    /**
     * GET {@code <owner>/<local id>}: the bound ARK or 404; POST {@code <ark>/<owner>/<local id>}: binds unless bound.
     */
    private void localIds(HttpExchange ex, String method, String[] segments) throws IOException {
        if (method.equals("GET") && segments.length == 2) {
            lookups.incrementAndGet();
            String id = decode(segments[1]);
            String ark = decode(segments[0]).equals(OWNER) ? bindings.get(id) : null;
            answer(ex, ark == null ? 404 : 200, ark == null ? "{\"error\":\"local id not found\"}" : state(ark, id));
        } else if (method.equals("POST") && segments.length == 3 && decode(segments[1]).equals(OWNER)) {
            String ark = decode(segments[0]);
            String id = decode(segments[2]);
            bindCalls.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(ark);
            String kept = bindings.computeIfAbsent(id, k -> ark);
            Shot answered = at(Moment.BIND_ANSWERED, ex, objectOfLocalId.getOrDefault(id, -1));
            answer(ex, 200, state(kept, id));
            answered.fire();
        } else {
            answer(ex, 400, "{\"error\":\"not an inventory local-id call\"}");
        }
    }

    private static String state(String ark, String localId) {
        return "{\"invl:localContainerState\":{\"primaryIdentifier\":\"" + ark + "\",\"localID\":\""
                + localId.replace("\"", "\\\"") + "\"}}";
    }

    int objectOfArk(String ark) {
        for (var e : mintedFor.entrySet()) {
            if (e.getValue().contains(ark)) {
                return e.getKey();
            }
        }
        return -1;
    }

    private Shot at(Moment m, HttpExchange ex, int object) {
        ChaosFaults f = faults;
        return f == null ? ChaosFaults.NONE : f.at(m, ex, object);
    }

    /** Fires what the moment holds now; true when the sender is dead and the request is dropped. */
    private boolean shot(Moment m, HttpExchange ex, int object) {
        if (at(m, ex, object).fire()) {
            ex.close();
            return true;
        }
        return false;
    }

    private void call(Map<String, List<String>> calls, String key, HttpExchange ex) {
        calls.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(sender.apply(ex));
    }

    private static <K> void count(Map<K, AtomicInteger> counts, K key) {
        counts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    private static String last(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new HashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                form.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
            }
        }
        return form;
    }

    static void answer(HttpExchange ex, int status, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
