package org.cdlib.mrt.ingestqueue.api.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Document;

/**
 * Text is data (issue 49), on the running service with its real steps, local storage and
 * outbox: control characters and lone surrogates are refused at the door naming the field, a
 * URL's credentials are refused and never written (through the API or a manifest), and what a
 * neighbour writes into the queue unchecked is still preserved as well-formed XML and logged one
 * line per event.
 */
class TextIsDataTest {
    static final String PASSWORD = "s3cr3t-pw";
    /** A forged audit line, as a submitter or local id would carry it. */
    static final String FORGED = "\r\n00:00:00.000 INFO  [vert.x-eventloop-thread-0] ingestqueue.audit - user=admin "
            + "action=\"DELETE /api/jobs/jid0000000001\" target=jid=jid0000000001 result=ok status=200";
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().keepNodesBetweenTests();
    @RegisterExtension
    static final RunningApi API = new RunningApi(ZK);
    static QueueStore store;
    static HttpServer payloads;
    static String payloadBase;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        payloads = HttpServer.create(new InetSocketAddress("127.0.0.2", 0), 0);
        payloadBase = "http://127.0.0.2:" + payloads.getAddress().getPort();
        String secretUrl = "http://alice:" + PASSWORD + "@127.0.0.2:" + payloads.getAddress().getPort() + "/a.txt";
        Map<String, String> served = Map.of("/a.txt", "hello\n",
                "/batch.checkm", "#%checkm_0.7\n"
                        + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                        + "#%fields | nfo:fileUrl | nfo:fileName | mrt:title\n"
                        + payloadBase + "/a.txt | a.txt | first\n"
                        + secretUrl + " | b.txt | second\n"
                        + "#%eof\n",
                "/object.checkm", "#%checkm_0.7\n"
                        + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest\n"
                        + "#%fields | nfo:fileUrl | nfo:fileName\n"
                        + secretUrl + " | a.txt\n"
                        + "#%eof\n");
        payloads.createContext("/", ex -> {
            String body = served.get(ex.getRequestURI().getPath());
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(body == null ? 404 : 200, "HEAD".equals(ex.getRequestMethod()) || b.length == 0 ? -1
                    : b.length);
            if (!"HEAD".equals(ex.getRequestMethod())) {
                ex.getResponseBody().write(b);
            }
            ex.close();
        });
        payloads.start();
        Map<String, String> config = API.realSteps();
        config.put("ingest.provisioning.max-used-percent", "100");
        config.put("ingest.download.retries", "0");
        config.put("ingest.fetch.allow", "127.0.0.2");
        config.put("ingest.api.users", "sam:pw-s:submitter, ui:pw-ui:poster");
        root().addAppender(logs);
        logs.start();
        store = API.start(config).store();
        base = API.base();
    }

    @AfterAll
    static void stop() {
        root().detachAppender(logs);
        payloads.stop(0);
    }

    static Logger root() {
        return (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    }

    static HttpRequest.Builder request(String path, String user, String pw) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Basic "
                + Base64.getEncoder().encodeToString((user + ":" + pw).getBytes(StandardCharsets.UTF_8)));
    }

    static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> postJson(String body) throws Exception {
        return send(request("/api/batches", "sam", "pw-s").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    static HttpResponse<String> poster(Map<String, String> fields) throws Exception {
        Map<String, String> f = new LinkedHashMap<>(Map.of("profile", "demo_content", "url", payloadBase + "/a.txt"));
        f.putAll(fields);
        MultipartForm form = MultipartForm.of(f, null, null);
        return send(request("/poster/submit", "ui", "pw-ui").header("Content-Type",
                form.contentType()).POST(form.publisher()));
    }

    /** The answer's JSON error message, after checking it is a 400. */
    static String refusal(HttpResponse<String> r) throws Exception {
        assertEquals(400, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("error").asText();
    }

    /** Every log event so far as the configured pattern writes it. */
    @SuppressWarnings("unchecked")
    static List<String> rendered() {
        OutputStreamAppender<ILoggingEvent> stdout = (OutputStreamAppender<ILoggingEvent>) root().getAppender("STDOUT");
        List<ILoggingEvent> events;
        synchronized (logs) {
            events = List.copyOf(logs.list);
        }
        return events.stream().map(e -> new String(stdout.getEncoder().encode(e), StandardCharsets.UTF_8)).toList();
    }

    /** Each event is one line (a stack trace aside), and no line is the forged audit line. */
    static void oneLinePerEvent() {
        for (String r : rendered()) {
            String message = r.contains("\tat ") ? r.substring(0, r.indexOf('\n') + 1) : r;
            assertEquals(1, message.chars().filter(c -> c == '\n' || c == '\r').count(), "one line per event: " + r);
            assertFalse(r.lines().anyMatch(l -> l.startsWith("00:00:00.000 INFO")), r);
        }
    }

    @Test
    void aLineBreakInSubmitterOrLocalIdentifierIsRefusedNamingTheFieldAndCreatesNothing() throws Exception {
        long before = store.batches().newestNumber();
        String json = JSON.writeValueAsString(Map.of("profile", "demo_content", "payload_url", payloadBase + "/a.txt",
                "submitter", "sam" + FORGED));
        assertEquals("field 'submitter' contains a line break (a carriage return, U+000D) at character 4; "
                + "it must be one line of text",
                refusal(postJson(json)));
        json = JSON.writeValueAsString(Map.of("profile", "demo_content", "payload_url", payloadBase + "/a.txt",
                "local_identifier", "loc-1\nuser=admin"));
        assertTrue(refusal(postJson(json)).startsWith(
                "field 'local_identifier' contains a line break (U+000A) at character 6"));
        assertTrue(refusal(poster(Map.of("submitter", "dep" + FORGED)))
                .startsWith("field 'submitter' contains a line break (a carriage return"));
        assertTrue(refusal(poster(Map.of("localIdentifier", "loc-1" + FORGED))).startsWith(
                "field 'localIdentifier' contains"));
        MultipartForm form = MultipartForm.of(Map.of("profile", "demo_content", "url", payloadBase + "/a.txt"), null,
                null);
        HttpResponse<String> r = send(request("/poster/submit/ark/99999/fk4x%0Auser=admin", "ui", "pw-ui")
                .header("Content-Type", form.contentType()).POST(form.publisher()));
        assertTrue(refusal(r).startsWith("field 'primaryIdentifier (the ARK in the path)' contains a line break"),
                r.body());
        assertEquals(before, store.batches().newestNumber(), "nothing was created");
        oneLinePerEvent();
    }

    @Test
    void aNulOrALoneSurrogateInAnyTextFieldIsRefusedBeforeABatchIsCreated() throws Exception {
        long before = store.batches().newestNumber();
        for (String field : List.of("title", "creator", "date", "local_identifier", "primary_identifier", "note",
                "file_name")) {
            String body = "{\"profile\":\"demo_content\",\"payload_url\":\"" + payloadBase + "/a.txt\",\"" + field
                    + "\":\"a\\u0000b\"}";
            assertEquals("field '" + field + "' contains a NUL character (U+0000) at character 2; "
                    + (field.equals("note") ? "only tabs and line breaks are allowed in it"
                    : "it must be one line of text"),
                    refusal(postJson(body)), field);
        }
        String loneSurrogate = "{\"profile\":\"demo_content\",\"payload_url\":\"" + payloadBase
                + "/a.txt\",\"title\":\"x \\ud800 y\"}";
        assertEquals(
                "field 'title' contains half of a surrogate pair alone (U+D800, not a character) at character 3; it "
                + "must be "
                + "one line of text", refusal(postJson(loneSurrogate)));
        String dc = "{\"profile\":\"demo_content\",\"payload_url\":\"" + payloadBase
                + "/a.txt\",\"dublin_core\":{\"subject\":[\"maps\","
                + "\"b\\u0001\"]}}";
        assertTrue(refusal(postJson(dc)).startsWith(
                "field 'dublin_core.subject' contains a control character (U+0001)"));
        assertTrue(refusal(poster(Map.of("DC.title", "a\u0000b"))).startsWith(
                "field 'DC.title' contains a NUL character"));
        assertTrue(refusal(poster(Map.of("title", "a\u0007b"))).startsWith(
                "field 'title' contains a control character (U+0007)"));
        assertEquals(before, store.batches().newestNumber(), "nothing was created, no id minted");

        // free text that spans lines keeps its tabs and line breaks
        String note = JSON.writeValueAsString(Map.of("profile", "demo_content", "payload_url", payloadBase + "/a.txt",
                "note", "line 1\r\n\tline 2", "dublin_core", Map.of("description", "para 1\n\npara 2")));
        HttpResponse<String> ok = postJson(note);
        assertEquals(201, ok.statusCode(), ok.body());
        assertEquals("line 1\r\n\tline 2", store.batches().load(ok.headers().firstValue("BID").orElseThrow())
                .submission().note());
    }

    @Test
    void merrittsXmlAnswerIsXml10WhateverTheSubmitterHolds() throws Exception {
        HttpResponse<String> r = poster(Map.of("submitter", "dep/Ann <Lee> & \"Co\" ünï 𝄞"));
        assertEquals(200, r.statusCode(), r.body());
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)));
        assertEquals("dep/Ann <Lee> & \"Co\" ünï 𝄞", d.getElementsByTagName("bat:userAgent").item(0).getTextContent());
        // a control character never reaches it: the form is refused (as JSON, the answer to every refusal)
        HttpResponse<String> refused = poster(Map.of("submitter", "dep/Ann\u0001"));
        assertTrue(refusal(refused).startsWith("field 'submitter' contains a control character (U+0001)"),
                refused.body());
    }

    @Test
    void credentialsInAUrlAreRefusedAtTheDoorNamingTheFieldNeverThePassword() throws Exception {
        long before = store.batches().newestNumber();
        String secret = "http://alice:" + PASSWORD + "@127.0.0.2:" + payloads.getAddress().getPort() + "/a.txt";
        String m = refusal(postJson(JSON.writeValueAsString(Map.of("profile", "demo_content", "payload_url", secret))));
        assertTrue(m.startsWith(
                "field 'payload_url' names a user or password before its host (http://***@127.0.0.2:"), m);
        m = refusal(poster(Map.of("url", secret)));
        assertTrue(m.startsWith("field 'url' names a user or password"), m);
        m = refusal(poster(Map.of("url", "ftp://alice:" + PASSWORD + "@127.0.0.2/a.txt")));
        assertTrue(m.startsWith("field 'url' names a user or password"), m);
        assertEquals(before, store.batches().newestNumber());
        assertTrue(rendered().stream().noneMatch(l -> l.contains(PASSWORD)), String.join("", rendered()));
    }

    @Test
    void credentialsInAManifestFailTheBatchOrTheJobNamingTheLineAndAreWrittenNowhere() throws Exception {
        String batch = submit("/batch.checkm", "single-file-batch-manifest");
        await().atMost(Duration.ofSeconds(60)).until(() -> store.batches().load(batch).state() == BatchState.FAILED);
        assertEquals("manifest line 5: nfo:fileUrl http://***@127.0.0.2:" + payloads.getAddress().getPort()
                + "/a.txt names a "
                + "user or password before its host; credentials are not accepted in URLs",
                store.batches().load(batch).status().errorMessage());
        assertEquals(0, store.batches().load(batch).jobCount(), "no job was made of the manifest");

        String object = submit("/object.checkm", "object-manifest");
        await().atMost(Duration.ofSeconds(60)).until(() -> store.batches().load(object).jobCount() == 1
                && store.jobs().load(store.batches().load(object).jobIds().get(0)).state() == JobState.FAILED);
        Job job = store.jobs().load(store.batches().load(object).jobIds().get(0));
        assertTrue(job.status().errorMessage().contains("manifest line 4: nfo:fileUrl http://***@127.0.0.2:"),
                job.status().errorMessage());

        // the reports (batch and object) are mailed: neither names the password
        await().atMost(Duration.ofSeconds(60)).until(() -> mails().stream().filter(m -> m.contains(batch)
                || m.contains(object))
                .filter(m -> m.contains("Submission Processed")).count() >= 2);
        for (String m : mails()) {
            assertFalse(m.contains(PASSWORD), m);
        }
        for (String path : List.of("/api/batches/" + batch, "/api/batches/" + object, "/api/jobs/" + job.id())) {
            HttpResponse<String> r = send(request(path, "sam", "pw-s"));
            assertEquals(200, r.statusCode(), r.body());
            assertFalse(r.body().contains(PASSWORD), r.body());
        }
        assertTrue(rendered().stream().noneMatch(l -> l.contains(PASSWORD)), String.join("", rendered()));
        oneLinePerEvent();
    }

    @Test
    void aNeighboursBatchHoldingOddCharactersIsPreservedAsWellFormedXmlAndLoggedOneLinePerEvent() throws Exception {
        // written straight into the queue, as Merritt's tools (mrt-zk) may: nothing checked it at our door
        String odd = "x\u0000\u0001\u000B\u007F\u0085\u2028<&>\r\n\tend";
        Map<String, List<String>> dc = new LinkedHashMap<>();
        for (String e : List.of("title", "creator", "date", "subject", "description", "rights", "publisher")) {
            dc.put(e, List.of(e + " " + odd));
        }
        String bid = store.batches().create(new BatchSubmission("demo_content", "sam" + FORGED + "\u0000",
                payloadBase + "/a.txt", "title " + odd, "creator " + odd, "date " + odd, null, "file", "add", "a.txt",
                "loc-" + System.nanoTime() + FORGED, null, null, null, null, "xml", "note " + odd,
                Instant.now().toString(), dc));
        await().atMost(Duration.ofSeconds(90)).until(() -> store.batches().load(bid).state() == BatchState.COMPLETED
                || store.batches().load(bid).state() == BatchState.FAILED);
        String jid = store.batches().load(bid).jobIds().get(0);
        assertEquals(JobState.COMPLETED, store.jobs().load(jid).state(), store.jobs().load(jid).status()
                .errorMessage());

        List<Path> preserved = new ArrayList<>();
        try (Stream<Path> w = Files.walk(API.dir().resolve("storage"))) {
            w.filter(p -> p.endsWith(Path.of("system", "mrt-dc.xml"))).forEach(preserved::add);
        }
        assertFalse(preserved.isEmpty(), "system/mrt-dc.xml is preserved");
        boolean found = false;
        for (Path p : preserved) {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            Document d = f.newDocumentBuilder().parse(p.toFile()); // well-formed XML 1.0, or this throws
            String title = d.getElementsByTagNameNS("http://purl.org/dc/elements/1.1/",
            "title").item(0).getTextContent();
            found |= title.equals("title x\uFFFD\uFFFD\uFFFD\u007F\u0085\u2028<&>\r\n\tend");
        }
        assertTrue(found, "the neighbour's title is in a preserved mrt-dc.xml, what XML cannot hold as U+FFFD: "
                + preserved);

        await().atMost(Duration.ofSeconds(60)).until(() -> mails().stream().anyMatch(m -> m.contains(bid)
                && m.contains("Submission Processed")));
        String report = mails().stream().filter(m -> m.contains(bid) && m.contains("Submission Processed")).findFirst()
                .orElseThrow();
        List<String> submitterLines = report.lines().filter(l -> l.startsWith("Submitter: ")).toList();
        assertEquals(1, submitterLines.size(), report);
        assertTrue(submitterLines.get(0).startsWith("Submitter: sam\\r\\n00:00:00.000 INFO"), report);
        assertFalse(report.lines().anyMatch(l -> l.startsWith("00:00:00.000")), report);
        oneLinePerEvent();
    }

    static String submit(String path, String type) throws Exception {
        HttpResponse<String> r = postJson(JSON.writeValueAsString(Map.of("profile", "demo_content", "type", type,
                "payload_url", payloadBase + path)));
        assertEquals(201, r.statusCode(), r.body());
        return r.headers().firstValue("BID").orElseThrow();
    }

    /** The outbox's mails, each as its text (quoted-printable and base64 parts decoded). */
    static List<String> mails() throws Exception {
        Path outbox = API.dir().resolve("outbox");
        if (!Files.isDirectory(outbox)) {
            return List.of();
        }
        List<String> texts = new ArrayList<>();
        try (Stream<Path> files = Files.walk(outbox)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".eml")).toList()) {
                try (var in = Files.newInputStream(f)) {
                    var m = new MimeMessage(null, in);
                    texts.add(m.getSubject() + "\n" + text(m.getContent()));
                }
            }
        }
        return texts;
    }

    private static String text(Object content) throws Exception {
        if (content instanceof Multipart mp) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < mp.getCount(); i++) {
                b.append(text(mp.getBodyPart(i).getContent())).append('\n');
            }
            return b.toString();
        }
        if (content instanceof InputStream in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return String.valueOf(content);
    }
}
