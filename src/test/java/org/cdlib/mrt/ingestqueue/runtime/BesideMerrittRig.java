package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.Callable;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.awaitility.core.ConditionTimeoutException;
import org.cdlib.mrt.ingestqueue.api.HttpApi;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkAdminTool;
import org.cdlib.mrt.ingestqueue.testing.merritt.MrtZkDaemon;

/**
 * One running service (recording job steps, its real batch report and mail to GreenMail, the
 * default sweeps: nothing here may pass by a 10-minute sweep) on its own ZooKeeper, beside a
 * second session that is Merritt's: the Admin Tool ({@link MrtZkAdminTool}) and mrt-ingest's
 * daemons ({@link MrtZkDaemon}). Shared by the tests of a class: each works on its own batches.
 */
final class BesideMerrittRig implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient CLIENT = HttpClient.newHttpClient();
    /** Within 10 s is what the issue asks; the machine is loaded, so the tests allow 30. */
    static final Duration DEADLINE = Duration.ofSeconds(30);

    final TestingServer zk;
    final GreenMail smtp;
    final ServiceTestSupport support = new ServiceTestSupport();
    final IngestService service;
    final QueueStore store;
    final String base;
    final CuratorFramework merrittClient;
    final MrtZkAdminTool adminTool;
    final MrtZkDaemon daemon;
    final Path home;

    BesideMerrittRig(Path dir, Map<String, String> extra) throws Exception {
        zk = new TestingServer(true);
        smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        smtp.start();
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        for (String p : new String[] {"demo_content", "coll_held"}) {
            Files.writeString(
                    profiles.resolve(p),
                    "ProfileID: " + p + "\nCollection.1: ark:/99999/fk4c\nStorageNode: 1\n"
                            + "Notification.1: curator@example.org\nNotificationSuppression: none\n");
        }
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(zk.getConnectString(), dir));
        config.put("ingest.api.users", "alice:pw-a:admin|submitter");
        config.put("ingest.mail.smtp.host", "127.0.0.1");
        config.put("ingest.mail.smtp.port", Integer.toString(smtp.getSmtp().getPort()));
        config.put("ingest.mail.from", "ingest@example.org");
        config.putAll(extra);
        service = new IngestService(config, support.beans(true)).start();
        store = service.store();
        home = dir.resolve("queue");
        base = "http://127.0.0.1:" + service.camel().getRegistry().lookupByNameAndType("httpApi", HttpApi.class).port();
        merrittClient = QueueTestSupport.client(zk);
        ZooKeeper raw = merrittClient.getZookeeperClient().getZooKeeper();
        adminTool = new MrtZkAdminTool(raw);
        daemon = new MrtZkDaemon(raw);
        adminTool.initLocks();
    }

    HttpResponse<String> call(String method, String path) throws Exception {
        return CLIENT.send(
                HttpRequest.newBuilder(URI.create(base + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .header(
                                "Authorization",
                                "Basic "
                                        + Base64.getEncoder()
                                                .encodeToString("alice:pw-a".getBytes(StandardCharsets.UTF_8)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    JsonNode get(String path) throws Exception {
        HttpResponse<String> r = call("GET", path);
        if (r.statusCode() != 200) {
            throw new AssertionError("GET " + path + ": " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** Our API's state of a job ("held", "completed" …), or "404" when it has none. */
    String apiJobState(String jid) throws Exception {
        HttpResponse<String> r = call("GET", "/api/jobs/" + jid);
        return r.statusCode() == 404 ? "404" : JSON.readTree(r.body()).get("status").get("status").asText();
    }

    String apiBatchState(String bid) throws Exception {
        HttpResponse<String> r = call("GET", "/api/batches/" + bid);
        return r.statusCode() == 404 ? "404" : JSON.readTree(r.body()).get("status").get("status").asText();
    }

    /** Waits for a condition, naming what it waited for (and what it last saw) when it does not come. */
    static void within(String what, Callable<Boolean> condition, Callable<Object> seen) {
        try {
            await(what).atMost(DEADLINE).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(condition);
        } catch (ConditionTimeoutException e) {
            Object last;
            try {
                last = seen.call();
            } catch (Exception x) {
                last = x.toString();
            }
            throw new AssertionError(what + " not within " + DEADLINE.toSeconds() + " s; last seen: " + last);
        }
    }

    /**
     * A batch of ours with n jobs ({@link QueueTestSupport#batchWithJobs}), made again when our own
     * running intake locked the pending batch first (that one fails on its made-up manifest URL).
     */
    String ourBatch(int n) {
        for (int attempt = 0; ; attempt++) {
            try {
                return QueueTestSupport.batchWithJobs(store, n, 5);
            } catch (NoSuchElementException e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    ConsistencyCheck.Report fsck() {
        return new ConsistencyCheck(store).check();
    }

    @Override
    public void close() throws Exception {
        merrittClient.close();
        service.close();
        smtp.stop();
        zk.close();
    }
}
