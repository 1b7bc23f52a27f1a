package org.cdlib.mrt.ingestqueue.api.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.cdlib.mrt.ingestqueue.api.auth.ApiUsers;
import org.cdlib.mrt.ingestqueue.api.auth.Passwords;
import org.cdlib.mrt.ingestqueue.api.auth.Sessions;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Issue 14 as an attacker would try it, over real HTTP on the running service with its real
 * steps. The allow-list names only 127.0.0.2 (a payload server that may be fetched); listeners
 * on 127.0.0.1 stand in for forbidden addresses (loopback is not allowed here), and each test
 * asserts that none of them was reached, as well as the refusal's message.
 */
class SecurityTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
    @RegisterExtension
    static final RunningApi API = new RunningApi(ZK);
    static QueueStore store;
    static String base;
    static int port;
    static HttpServer forbidden;
    static final AtomicInteger forbiddenHits = new AtomicInteger();
    static HttpServer allowed;
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String OPS_HASH = Passwords.hash("ops-secret");
    static final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    @BeforeAll
    static void start() throws Exception {
        forbidden = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        forbidden.createContext("/", ex -> {
            forbiddenHits.incrementAndGet();
            byte[] b = "secret credentials".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        forbidden.start();
        allowed = HttpServer.create(new InetSocketAddress("127.0.0.2", 0), 0);
        allowed.createContext("/redirect", ex -> {
            ex.getResponseHeaders().add("Location", forbiddenUrl("/latest/meta-data/"));
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        allowed.start();
        Map<String, String> config = API.realSteps();
        config.put("ingest.provisioning.max-used-percent", "100");
        config.put("ingest.download.retries", "0");
        config.put("ingest.fetch.allow", "127.0.0.2"); // loopback 127.0.0.1 stays forbidden
        config.put("ingest.api.users", "ops:" + OPS_HASH
        + ":admin|submitter, sam:pw-s:submitter, store:pw-st:storage, quinn:pw-q:submitter");
        config.put("ingest.api.max-upload-per-user", "150000");
        ((Logger) LoggerFactory.getLogger("ingestqueue.audit")).addAppender(audit);
        audit.start();
        store = API.start(config).store();
        port = API.port();
        base = API.base();
    }

    @AfterAll
    static void stop() {
        ((Logger) LoggerFactory.getLogger("ingestqueue.audit")).detachAppender(audit);
        forbidden.stop(0);
        allowed.stop(0);
    }

    static String forbiddenUrl(String path) {
        return "http://127.0.0.1:" + forbidden.getAddress().getPort() + path;
    }

    static String auth(String user, String pw) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + pw).getBytes(StandardCharsets.UTF_8));
    }

    static HttpRequest.Builder request(String path, String user, String pw) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        if (user != null) {
            b.header("Authorization", auth(user, pw));
        }
        return b;
    }

    static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> postJson(String path, String user, String pw, String body) throws Exception {
        return send(request(path, user, pw).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** The answer's JSON error message, after checking the status. */
    static String error(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                r.headers().toString());
        JsonNode j = JSON.readTree(r.body());
        assertEquals(status, j.get("status").asInt());
        String m = j.get("error").asText();
        assertFalse(m.contains("KeeperErrorCode") || m.contains("/ingest/") || m.contains("Exception"), m);
        return m;
    }

    static HttpResponse<String> multipart(String user, String pw, Map<String, String> fields, String fileName,
            byte[] file)
            throws Exception {
        MultipartForm form = MultipartForm.of(fields, fileName, file);
        return send(request("/poster/submit", user, pw).header("Content-Type", form.contentType())
                .POST(form.publisher()));
    }

    /** Submits {@code url} as a file payload (sam) and returns the batch id. */
    static String submit(String url, String type) throws Exception {
        HttpResponse<String> r = postJson("/api/batches", "sam", "pw-s",
                "{\"profile\":\"demo_content\",\"type\":\"" + type + "\",\"payload_url\":\"" + url + "\"}");
        assertEquals(201, r.statusCode(), r.body());
        return r.headers().firstValue("BID").orElseThrow();
    }

    /** The batch's only job once it has ended in failed. */
    static Job failedJob(String bid) {
        await().atMost(Duration.ofSeconds(60)).until(() -> store.batches().load(bid).jobCount() == 1
                && store.jobs().load(store.batches().load(bid).jobIds().get(0)).state() == JobState.FAILED);
        return store.jobs().load(store.batches().load(bid).jobIds().get(0));
    }

    static List<Path> filesUnder(Path root) throws Exception {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> w = Files.walk(root)) {
            return w.filter(Files::isRegularFile).toList();
        }
    }

    // ------------------------------------------------------------------ outbound requests

    @Test
    void aPayloadUrlAtAnAddressLiteralThatIsNotAllowedIsRefusedAtSubmitAndCreatesNothing() throws Exception {
        long before = store.batches().newestNumber();
        for (String url : List.of("http://169.254.169.254/latest/meta-data/", forbiddenUrl("/x"), "http://10.0.0.7/a",
                "http://[::1]:" + forbidden.getAddress().getPort() + "/x", "http://0.0.0.0/x")) {
            String m = error(postJson("/api/batches", "sam", "pw-s", "{\"profile\":\"demo_content\",\"payload_url\":\""
                    + url + "\"}"), 400);
            assertTrue(m.startsWith(url + ": refused: ") && m.contains("ingest.fetch.allow"), m);
        }
        assertTrue(error(postJson("/api/batches", "sam", "pw-s",
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://169.254.169.254/latest/\"}"), 400)
                .contains("a link-local address (169.254.0.0/16, fe80::/10)"));
        // the service's own port, even on an allowed address
        String own = "http://127.0.0.2:" + port + "/api/queue";
        assertTrue(error(postJson("/api/batches", "sam", "pw-s", "{\"profile\":\"demo_content\",\"payload_url\":\""
                + own + "\"}"), 400)
                .contains("this service's own HTTP port"));
        assertEquals(before, store.batches().newestNumber(), "no batch was made");
        assertEquals(0, forbiddenHits.get(), "no request reached the forbidden listener");
    }

    @Test
    void aNameThatResolvesToAForbiddenAddressIsRefusedWhenConnectingAndTheJobFailsNamingUrlAndRule() throws Exception {
        // "localhost" passes the submit check (no lookup there); the connection is refused on the address it resolved
        // to
        String url = "http://localhost:" + forbidden.getAddress().getPort() + "/payload.txt";
        Job job = failedJob(submit(url, "file"));
        String m = job.status().errorMessage();
        assertTrue(m.contains(url) && m.contains("refused: localhost is ") && m.contains("a loopback address"), m);
        assertEquals(0, forbiddenHits.get(), "no request reached the forbidden listener");
        assertEquals(List.of(), filesUnder(Path.of(job.configuration().workingDir()).resolve("producer")));
    }

    @Test
    void aRedirectFromAnAllowedServerToAForbiddenAddressIsNotFollowed() throws Exception {
        String url = "http://127.0.0.2:" + allowed.getAddress().getPort() + "/redirect";
        Job job = failedJob(submit(url, "file"));
        String m = job.status().errorMessage();
        assertTrue(m.contains("redirected to " + forbiddenUrl("/latest/meta-data/"))
                && m.contains("a loopback address"), m);
        assertEquals(0, forbiddenHits.get(), "the redirect did not reach the forbidden listener");
    }

    @Test
    void theServicesOwnPortIsNeverFetchedEvenOnAnAllowedAddress() throws Exception {
        // another job's working file, by a name for this host and the service's own port
        Path other = API.dir().resolve("queue/bid0000009999/jid0000009999/producer/secret.txt");
        Files.createDirectories(other.getParent());
        Files.writeString(other, "another depositor's payload");
        String url = "http://localhost:" + port + "/files/bid0000009999/jid0000009999/producer/secret.txt";
        Job job = failedJob(submit(url, "file"));
        String m = job.status().errorMessage();
        assertTrue(m.contains(url) && m.contains("this service's own HTTP port"), m);
        assertEquals(List.of(), filesUnder(Path.of(job.configuration().workingDir()).resolve("producer")));
    }

    // ------------------------------------------------------------------ working files

    @Test
    void workingFilesAnswerOnlyToASignedUnexpiredUrlOrTheStorageUser() throws Exception {
        Path f = API.dir().resolve("queue/bid0000009998/jid0000009998/producer/a b.txt");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "content");
        String path = "/files/bid0000009998/jid0000009998/producer/a%20b.txt";
        assertTrue(error(send(request(path, null, null)), 403).contains("needs a signed URL"));
        assertTrue(error(send(request(path, "sam", "pw-s")), 403).contains("lacks role 'storage'"));
        String signed = FileUrlSigner.signIfServed(f.getParent().getParent(), base + path);
        assertTrue(signed.matches(".*\\?expires=\\d+&signature=[A-Za-z0-9_-]+$"), signed);
        HttpResponse<String> ok = send(HttpRequest.newBuilder(URI.create(signed)));
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals("content", ok.body());
        // the signature covers the file: moved to another path it opens nothing
        String moved = signed.replace("a%20b.txt", "other.txt");
        assertTrue(error(send(HttpRequest.newBuilder(URI.create(moved))), 403).contains("does not match"));
        // an expired signature (same key, signed long ago)
        Path keyFile = API.dir().resolve("queue/.secrets/files-signing.key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
        byte[] key = Base64.getDecoder().decode(Files.readString(keyFile).strip());
        String old = new FileUrlSigner(key, Duration.ofSeconds(1), Clock.fixed(Instant.parse("2020-01-01T00:00:00Z"),
                ZoneOffset.UTC)).sign(base + path);
        assertTrue(error(send(HttpRequest.newBuilder(URI.create(old))), 403).contains(
                "expired at 2020-01-01T00:00:01Z"));
        // storage's own credentials
        HttpResponse<String> byUser = send(request(path, "store", "pw-st"));
        assertEquals(200, byUser.statusCode(), byUser.body());
    }

    @Test
    void aUrlSignedUnderALeaseIsServedOnlyWhileThatSessionHoldsTheJob() throws Exception {
        String jid = "jid0000009996";
        Path f = API.dir().resolve("queue/bid0000009996/" + jid + "/producer/x.txt");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "x");
        String path = "/files/bid0000009996/" + jid + "/producer/x.txt";
        try (CuratorFramework a = client(); CuratorFramework b = client()) {
            a.create().creatingParentsIfNeeded().forPath("/jobs/" + jid);
            a.create().withMode(CreateMode.EPHEMERAL).forPath("/jobs/" + jid + "/lock");
            long sessionA = a.getZookeeperClient().getZooKeeper().getSessionId();
            long sessionB = b.getZookeeperClient().getZooKeeper().getSessionId();
            String byA = FileUrlSigner.signIfServed(f.getParent().getParent(), base + path, sessionA);
            assertTrue(byA.contains("?lease=" + Long.toHexString(sessionA) + "&expires="), byA);
            HttpResponse<String> held = send(HttpRequest.newBuilder(URI.create(byA)));
            assertEquals(200, held.statusCode(), held.body());
            assertEquals("x", held.body());
            // the lease is signed: another session's id in its place opens nothing
            String swapped = byA.replace(Long.toHexString(sessionA), Long.toHexString(sessionB));
            assertTrue(error(send(HttpRequest.newBuilder(URI.create(swapped))), 403).contains("does not match"));
            assertTrue(error(send(HttpRequest.newBuilder(URI.create(byA.replace("?lease=" + Long.toHexString(sessionA),
                    "?lease=zz")))), 403)
                    .contains("lease must be the hexadecimal session id"));

            // A's session ends (a host paused past it): its lock goes, and so does what its URLs serve
            a.getZookeeperClient().getZooKeeper().close();
            await().atMost(Duration.ofSeconds(30)).until(() -> b.checkExists().forPath("/jobs/" + jid
                    + "/lock") == null);
            assertTrue(error(send(HttpRequest.newBuilder(URI.create(byA))), 409).contains("nobody holds its lock"));
            // another host takes the job: A's URLs stay refused, B's own are served
            b.create().withMode(CreateMode.EPHEMERAL).forPath("/jobs/" + jid + "/lock");
            String m = error(send(HttpRequest.newBuilder(URI.create(byA))), 409);
            assertTrue(m.contains("session " + Long.toHexString(sessionB) + " does")
                    && m.contains("stores nothing"), m);
            String byB = FileUrlSigner.signIfServed(f.getParent().getParent(), base + path, sessionB);
            assertEquals(200, send(HttpRequest.newBuilder(URI.create(byB))).statusCode());
            // a URL without a lease, and storage's own credentials, are served as before
            assertEquals(200, send(HttpRequest.newBuilder(URI.create(FileUrlSigner.signIfServed(f.getParent()
                    .getParent(), base + path))))
                    .statusCode());
            assertEquals(200, send(request(path, "store", "pw-st")).statusCode());
            b.delete().forPath("/jobs/" + jid + "/lock");
            b.delete().forPath("/jobs/" + jid);
        }
    }

    /**
     * The lease is asked again before the file's last byte: a transfer during which its session lost
     * the job (a large file, a sender paused past its session) ends short, so storage's fetch fails.
     */
    @Test
    void aLeaseLostDuringTheTransferCutsTheFileShort() throws Exception {
        String jid = "jid0000009995";
        Path f = API.dir().resolve("queue/bid0000009995/" + jid + "/producer/large.bin");
        Files.createDirectories(f.getParent());
        int size = 40 << 20; // more than the sockets between the two ends hold
        byte[] content = new byte[size];
        new Random(7).nextBytes(content);
        Files.write(f, content);
        String path = "/files/bid0000009995/" + jid + "/producer/large.bin";
        try (CuratorFramework a = client(); CuratorFramework b = client()) {
            a.create().creatingParentsIfNeeded().forPath("/jobs/" + jid);
            a.create().withMode(CreateMode.EPHEMERAL).forPath("/jobs/" + jid + "/lock");
            long sessionA = a.getZookeeperClient().getZooKeeper().getSessionId();
            String byA = FileUrlSigner.signIfServed(f.getParent().getParent(), base + path, sessionA);

            // held throughout: every byte, as written
            HttpResponse<byte[]> whole = CLIENT.send(HttpRequest.newBuilder(URI.create(byA)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, whole.statusCode());
            assertTrue(Arrays.equals(content, whole.body()), "the file as written: " + whole.body().length + " bytes");

            HttpResponse<InputStream> r = CLIENT.send(HttpRequest.newBuilder(URI.create(byA)).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, r.statusCode());
            assertEquals(String.valueOf(size), r.headers().firstValue("Content-Length").orElse(""));
            long read = 0;
            try (InputStream in = r.body()) {
                read += in.readNBytes(1 << 20).length;
                // A's session ends mid-transfer, and another host takes the job
                a.getZookeeperClient().getZooKeeper().close();
                await().atMost(Duration.ofSeconds(30)).until(() -> b.checkExists().forPath("/jobs/" + jid
                        + "/lock") == null);
                b.create().withMode(CreateMode.EPHEMERAL).forPath("/jobs/" + jid + "/lock");
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    read += n;
                }
            } catch (IOException cut) {
                // the connection closed short of its Content-Length
            }
            assertTrue(read < size, "the whole file went to a fetch whose lease had lost the job: " + read + " bytes");
            b.delete().forPath("/jobs/" + jid + "/lock");
            b.delete().forPath("/jobs/" + jid);
        }
    }

    static CuratorFramework client() throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(ZK.connectString(), new RetryOneTime(100));
        c.start();
        c.blockUntilConnected();
        return c;
    }

    @Test
    void theStorageManifestNamesSignedUrls() throws Exception {
        Path wd = API.dir().resolve("queue/bid0000009997/jid0000009997");
        Files.createDirectories(wd.resolve("producer"));
        Files.writeString(wd.resolve("producer/x.txt"), "x");
        String text = StorageManifest.build(wd,
                (file, name) -> base + "/files/bid0000009997/jid0000009997/" + name).text();
        String url = text.lines().filter(l -> l.startsWith("http")).findFirst().orElseThrow().split(" \\| ")[0];
        assertTrue(url.contains("?expires=") && url.contains("&signature="), url);
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url)));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("x", r.body());
    }

    // ------------------------------------------------------------------ authentication before the body

    @Test
    void anUploadWithoutCredentialsIsRefusedBeforeItsBodyIsRead() throws Exception {
        Path incoming = API.dir().resolve("queue/uploads/.incoming");
        List<Path> before = filesUnder(incoming);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            // 300 MB announced, not one byte of it sent: the answer must come without it
            out.write(("POST /poster/submit HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                    + "Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: 314572800\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8); // the server closes the connection
            assertTrue(answer.startsWith("HTTP/1.1 401"), answer);
            assertTrue(answer.contains("\"error\":\"log in: this resource needs a user"), answer);
        }
        assertEquals(before, filesUnder(incoming), "nothing of the upload was written");
    }

    @Test
    void uploadsAreLimitedPerUserWithTheLimitNamed() throws Exception {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("profile", "demo_content");
        f.put("type", "file");
        HttpResponse<String> first = multipart("quinn", "pw-q", f, "a.bin", new byte[90_000]);
        assertEquals(200, first.statusCode(), first.body());
        long before = store.batches().newestNumber();
        String m = error(multipart("quinn", "pw-q", f, "b.bin", new byte[90_000]), 413);
        assertTrue(m.contains("user 'quinn' may upload 150000 bytes per PT24H (ingest.api.max-upload-per-user)"), m);
        assertEquals(before, store.batches().newestNumber(), "the refused upload made no batch");
    }

    // ------------------------------------------------------------------ containers

    @Test
    void aZipBombIsRefusedWhileUnpackingNamingTheLimitAndTheEstimateCountsWhatItUnpacksTo() throws Exception {
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(zip)) {
            z.putNextEntry(new ZipEntry("bomb.bin"));
            byte[] zeros = new byte[1024 * 1024];
            for (int i = 0; i < 40; i++) {
                z.write(zeros);
            }
            z.closeEntry();
        }
        assertTrue(zip.size() < 100_000, "a small container: " + zip.size());
        Map<String, String> f = new LinkedHashMap<>();
        f.put("profile", "demo_content");
        f.put("type", "container");
        HttpResponse<String> r = multipart("ops", "ops-secret", f, "bomb.zip", zip.toByteArray());
        assertEquals(200, r.statusCode(), r.body());
        Job job = failedJob(r.headers().firstValue("BID").orElseThrow());
        String m = job.status().errorMessage();
        assertTrue(m.contains("container bomb.zip: unpacks to more than 100 times its size")
                && m.contains("ingest.container.max-ratio"), m);
        assertTrue(job.spaceNeeded() >= 40L * 1024 * 1024, "the estimate counts the declared unpacked size: "
                + job.spaceNeeded());
        assertEquals(List.of(), filesUnder(Path.of(job.configuration().workingDir()).resolve("producer")));
        try (Stream<Path> w = Files.walk(API.dir())) {
            assertEquals(List.of(), w.filter(p -> p.getFileName().toString().equals("bomb.bin")).toList(),
                    "nothing left anywhere");
        }
    }

    // ------------------------------------------------------------------ input

    @Test
    void notificationAddressesAreCheckedAtSubmit() throws Exception {
        long before = store.batches().newestNumber();
        String crlf = error(postJson("/api/batches", "sam", "pw-s",
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\","
                + "\"notification\":\"a@example.org\\r\\nBcc: victim@example.org\"}"), 400);
        assertTrue(crlf.contains("field 'notification' contains a line break"), crlf);
        String noDomain = error(postJson("/api/batches", "sam", "pw-s",
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\","
                + "\"notification\":\"someone@\"}"), 400);
        assertTrue(noDomain.contains("'someone@' is not a mail address"), noDomain);
        Map<String, String> f = new LinkedHashMap<>();
        f.put("profile", "demo_content");
        f.put("url", "http://example.org/a");
        f.put("notification", "ops@example.org, nobody");
        assertTrue(error(multipart("sam", "pw-s", f, null, null), 400).contains("'nobody' is not a mail address"));
        assertEquals(before, store.batches().newestNumber(), "no batch was made");
    }

    @Test
    void jsonFieldsOfTheWrongTypeAreNamed() throws Exception {
        long before = store.batches().newestNumber();
        assertEquals("field 'title' must be a string, not a number", error(postJson("/api/batches", "sam", "pw-s",
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\",\"title\":5}"), 400));
        assertEquals("field 'payload_url' must be a string, not an array", error(postJson("/api/batches", "sam", "pw-s",
                "{\"profile\":\"demo_content\",\"payload_url\":[\"http://example.org/a\"]}"), 400));
        assertTrue(error(postJson("/api/batches", "sam", "pw-s",
                "{\"profile\":\"demo_content\",\"payload_url\":\"http://example.org/a\","
                + "\"dublin_core\":{\"title\":{\"x\":1}}}"), 400)
                .startsWith("field 'dublin_core.title' must be a string or an array of strings"));
        assertTrue(error(postJson("/api/batches", "sam", "pw-s", "null"), 400).contains("not a JSON object but null"));
        assertEquals(before, store.batches().newestNumber(), "no batch was made");
    }

    @Test
    void oddIdsAndNamesAreRefusedBeforeTheyReachZooKeeper() throws Exception {
        for (String[] c : new String[][] {
                {"/api/jobs/foo", "'foo' is not a job id (like jid0000000042)"},
                {"/api/batches/bid00000000001x", "is not a batch id"},
                {"/api/jobs?batch=..%2F..&limit=5", "is not a batch id (batch=)"}}) {
            assertTrue(error(send(request(c[0], "sam", "pw-s")), 400).contains(c[1]), c[0]);
        }
        HttpResponse<String> r = send(request("/api/collections/a%20b/hold", "ops", "ops-secret")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertTrue(error(r, 400).contains("is not a profile name"), r.body());
        r = send(request("/api/collections/no_such_profile/hold", "ops", "ops-secret")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertTrue(error(r, 404).contains("no profile 'no_such_profile'"), r.body());
        assertFalse(store.holds().heldCollections().contains("no_such_profile"), "no hold was written");
    }

    // ------------------------------------------------------------------ browser sessions

    @Test
    void answersCarryACspAndTheUsualSecurityHeaders() throws Exception {
        for (String path : List.of("/", "/login.html", "/api/health")) {
            var h = send(request(path, null, null)).headers();
            assertTrue(h.firstValue("Content-Security-Policy").orElse("").contains("script-src 'self'"), path);
            assertTrue(h.firstValue("Content-Security-Policy").orElse("").contains("frame-ancestors 'none'"), path);
            assertEquals("DENY", h.firstValue("X-Frame-Options").orElse(""), path);
            assertEquals("nosniff", h.firstValue("X-Content-Type-Options").orElse(""), path);
            assertEquals("no-referrer", h.firstValue("Referrer-Policy").orElse(""), path);
        }
    }

    @Test
    void aSessionCookieIsHttpOnlyStrictAndItsStateChangesNeedTheCsrfToken() throws Exception {
        HttpRequest.Builder login = HttpRequest.newBuilder(URI.create(base + "/api/login")).header("Content-Type",
                "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"ops\",\"password\":\"ops-secret\"}"));
        assertTrue(error(send(login), 403).contains("X-Requested-By"), "a login without the dashboard's header");
        assertEquals("the user name or password is wrong", error(send(HttpRequest.newBuilder(URI.create(base
                + "/api/login"))
                .header("Content-Type", "application/json").header("X-Requested-By", "t")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"ops\",\"password\":\"guess\"}"))), 401));
        HttpResponse<String> ok = send(login.header("X-Requested-By", "test"));
        assertEquals(200, ok.statusCode(), ok.body());
        String setCookie = ok.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(setCookie.startsWith(Sessions.COOKIE + "=") && setCookie.toLowerCase(Locale.ROOT)
                .contains("; httponly") && setCookie.contains("SameSite=Strict"),
                setCookie);
        String cookie = setCookie.split(";")[0];
        // the session's first read issues its CSRF token as a cookie the page reads (not HttpOnly)
        HttpResponse<String> read = send(HttpRequest.newBuilder(URI.create(base + "/api/session")).header("Cookie",
                cookie));
        String csrfCookie = read.headers().allValues("Set-Cookie").stream().filter(c ->
                c.startsWith(Sessions.CSRF_COOKIE + "=")).findFirst().orElseThrow();
        assertFalse(csrfCookie.toLowerCase(Locale.ROOT).contains("httponly"), csrfCookie);
        String csrf = csrfCookie.split(";")[0].substring(Sessions.CSRF_COOKIE.length() + 1);
        String cookies = cookie + "; " + Sessions.CSRF_COOKIE + "=" + csrf;
        HttpResponse<String> without = send(HttpRequest.newBuilder(URI.create(base
                + "/api/queue/hold")).header("Cookie", cookies)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertTrue(error(without, 403).contains(Sessions.CSRF_HEADER));
        assertFalse(store.holds().isQueueHeld(), "the request without the token held nothing");
        HttpResponse<String> with = send(HttpRequest.newBuilder(URI.create(base + "/api/queue/hold")).header("Cookie",
                cookies)
                .header(Sessions.CSRF_HEADER, csrf).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(200, with.statusCode(), with.body());
        assertTrue(store.holds().isQueueHeld());
        // the accepted change renewed the token: the old one is spent
        assertEquals(403, send(HttpRequest.newBuilder(URI.create(base + "/api/queue/release")).header("Cookie", cookies)
                .header(Sessions.CSRF_HEADER, csrf).POST(HttpRequest.BodyPublishers.noBody())).statusCode());
        String renewed = with.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith(Sessions.CSRF_COOKIE
                + "="))
                .findFirst().orElseThrow().split(";")[0].substring(Sessions.CSRF_COOKIE.length() + 1);
        assertEquals(200, send(HttpRequest.newBuilder(URI.create(base + "/api/queue/release")).header("Cookie", cookie
                + "; "
                + Sessions.CSRF_COOKIE + "=" + renewed).header(Sessions.CSRF_HEADER,
                renewed).POST(HttpRequest.BodyPublishers.noBody())).statusCode());
        assertFalse(store.holds().isQueueHeld());
        await().atMost(Duration.ofSeconds(5)).until(() -> audit.list.stream().anyMatch(e -> e.getFormattedMessage()
                .equals("user=ops action=\"POST /api/queue/hold\" target=- result=ok status=200")));
        assertTrue(audit.list.stream().anyMatch(e -> e.getFormattedMessage().startsWith(
                "user=ops action=\"POST /api/queue/hold\" target=- "
                + "result=refused status=403 reason=\"refused: a request on the dashboard's session must carry")));
    }

    @Test
    void aBasicAuthenticatedPostFromAnotherSiteChangesNothing() throws Exception {
        HttpResponse<String> r = send(request("/api/queue/hold", "ops", "ops-secret").header("Origin",
                "http://evil.example")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertTrue(error(r, 403).contains("a request from http://evil.example (Origin) may not change anything"));
        r = send(request("/api/queue/hold", "ops", "ops-secret").header("Sec-Fetch-Site", "cross-site")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertTrue(error(r, 403).contains("a cross-site request"));
        assertFalse(store.holds().isQueueHeld(), "nothing was held");
    }

    // ------------------------------------------------------------------ credentials

    @Test
    void passwordsAreHashedAndPlainTextIsRefusedWhenAskedTo() {
        String hash = Passwords.hash("s3cret");
        assertTrue(hash.startsWith("pbkdf2-sha256$210000$"), hash);
        ApiUsers users = ApiUsers.parse("a:" + hash + ":admin", null, true);
        assertTrue(users.authenticate(auth("a", "s3cret")).isPresent());
        assertTrue(users.authenticate(auth("a", "guess")).isEmpty());
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
                () -> ApiUsers.parse("b:plain:admin", null, true));
        assertTrue(e.getMessage().contains("the password of 'b' is plain text"), e.getMessage());
        // the service here runs with a hashed admin password
        assertNotNull(OPS_HASH);
    }

    @Test
    void theGeneratedAdminPasswordIsKeptPrivateAndSurvivesARestart() throws Exception {
        Path secrets = API.dir().resolve("generated/.secrets");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(ApiUsers.class);
        logger.addAppender(log);
        log.start();
        try {
            ApiUsers.parse(null, secrets, false);
            Path file = secrets.resolve(ApiUsers.ADMIN_PASSWORD_FILE);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            String password = Files.readString(file).strip();
            ApiUsers again = ApiUsers.parse(null, secrets, false); // a restart
            assertTrue(again.authenticate("admin", password).isPresent(), "the kept password still logs in");
            assertEquals(password, Files.readString(file).strip());
            assertTrue(log.list.get(log.list.size() - 1).getFormattedMessage().contains("kept in "
                    + file.toAbsolutePath()));
        } finally {
            logger.detachAppender(log);
        }
    }
}
