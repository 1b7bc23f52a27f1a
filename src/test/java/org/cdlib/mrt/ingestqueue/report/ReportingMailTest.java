package org.cdlib.mrt.ingestqueue.report;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.model.BatchRef;
import org.cdlib.mrt.ingestqueue.queue.model.BatchState;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.cdlib.mrt.ingestqueue.runtime.IngestService;
import org.cdlib.mrt.ingestqueue.runtime.ServiceTestSupport;
import org.cdlib.mrt.ingestqueue.testing.MailServer;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.cdlib.mrt.ingestqueue.testing.QueueTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Batch reports and depositor mail through a real SMTP server (GreenMail) and the real service. */
class ReportingMailTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture().withHttp().withMail();

    final Path dir = ZK.dir();
    ServiceTestSupport support;
    IngestService service;
    QueueStore store;

    @BeforeEach
    void start() throws Exception {
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        for (String[] p :
                new String[][] {{"demo_content", "none"}, {"partial_content", "partial"}, {"full_content", "full"}}) {
            Files.writeString(
                    profiles.resolve(p[0]),
                    "ProfileID: " + p[0] + "\n"
                            + "Collection.1: ark:/99999/fk4c\n"
                            + "StorageNode: 1\n"
                            + "Notification.1: curator@example.org\n"
                            + "Notification.2: second@example.org\n"
                            + "NotificationSuppression: "
                            + p[1] + "\n");
        }
        support = new ServiceTestSupport();
        Map<String, String> config = new HashMap<>(ServiceTestSupport.config(ZK.connectString(), dir));
        ZK.mail().addTo(config);
        service = new IngestService(config, support.beans(true)).start();
        store = service.store();
    }

    @AfterEach
    void stop() {
        service.close();
    }

    String submit(String profile, int files) {
        StringBuilder m = new StringBuilder("#%checkm_0.7\n"
                + "#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n"
                + "#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified |"
                + " nfo:fileName\n");
        for (int i = 0; i < files; i++) {
            m.append("http://example.org/f").append(i).append(".txt | | | | | f").append(i).append(".txt\n");
        }
        String path = "/b" + System.nanoTime() + ".checkm";
        ZK.http().stubFor(get(urlEqualTo(path)).willReturn(aResponse().withBody(m.append("#%eof\n").toString())));
        String manifest = ZK.http().baseUrl() + path;
        return store.batches()
                .create(QueueTestSupport.submission(profile, "depositor", manifest, "single-file-batch-manifest",
                        "2026-11-22T10:00:00Z"));
    }

    BatchState awaitEnd(String bid) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            BatchState s = store.batches().load(bid).state();
            return s == BatchState.COMPLETED || s == BatchState.FAILED;
        });
        return store.batches().load(bid).state();
    }

    static String text(MimeMessage m) throws Exception {
        Object c = m.getContent();
        if (c instanceof Multipart mp) {
            return (String) mp.getBodyPart(0).getContent();
        }
        return (String) c;
    }

    static String attachment(MimeMessage m, String name) throws Exception {
        Multipart mp = (Multipart) m.getContent();
        for (int i = 0; i < mp.getCount(); i++) {
            BodyPart p = mp.getBodyPart(i);
            if (name.equals(p.getFileName())) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                p.getDataHandler().writeTo(out);
                return out.toString(StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no attachment " + name);
    }

    MimeMessage mailWithSubject(String subject) {
        await().atMost(Duration.ofSeconds(20)).until(() -> ZK.mail().received().stream()
                .anyMatch(m -> MailServer.subjectOf(m).equals(subject)));
        return ZK.mail().received().stream().filter(m -> MailServer.subjectOf(m).equals(subject)).findFirst()
                .orElseThrow();
    }

    @Test
    void aCompletedBatchIsQueuedThenReportedOkToTheProfilesRecipients() throws Exception {
        String bid = submit("demo_content", 2);
        assertEquals(BatchState.COMPLETED, awaitEnd(bid));
        MimeMessage queued = mailWithSubject("Ingest: OK -- Submission Queued: " + bid);
        assertTrue(text(queued).contains("Jobs queued: 2"), text(queued));
        MimeMessage done = mailWithSubject("Ingest: OK -- Submission Processed: " + bid);
        assertEquals("ingest@example.org", done.getFrom()[0].toString());
        // GreenMail delivers one copy per recipient
        assertEquals(2, ZK.mail().received().stream()
                .filter(m -> MailServer.subjectOf(m).equals("Ingest: OK -- Submission Processed: " + bid)).count());
        String body = text(done);
        assertTrue(
                body.contains("Submission ID: " + bid)
                        && body.contains("Completed jobs: 2")
                        && body.contains("Failed jobs: 0")
                        && body.contains("Pending jobs: 0")
                        && body.contains("Submitter: depositor")
                        && body.contains("Submission date: 2026-11-22T10:00:00Z")
                        && body.contains("Status: COMPLETED"),
                body);
        assertTrue(attachment(done, "completed.json").contains("\"job_id\" : \"jid0000000001\""));
        assertEquals("[ ]", attachment(done, "failed.json").strip());
        var report = store.batches().load(bid).statusReport();
        assertEquals(List.of("jid0000000001", "jid0000000002"), report.successfulJobs());
        assertEquals(List.of(), report.failedJobs());
    }

    @Test
    void aFailedJobMakesAFailReportNamingItAndAnUpdateReportNamesItWhenItRecovers() throws Exception {
        support.failOnce("downloadStep", "jid0000000002", "http://example.org/f1.txt: HTTP 404");
        String bid = submit("demo_content", 2);
        assertEquals(BatchState.FAILED, awaitEnd(bid));
        MimeMessage fail = mailWithSubject("Ingest: FAIL -- Submission Processed: " + bid);
        String body = text(fail);
        assertTrue(
                body.contains("Failed jobs: 1")
                        && body.contains("Completed jobs: 1")
                        && body.contains(
                                "First failure: jid0000000002: downloading: http://example.org/f1.txt: HTTP 404"),
                body);
        assertTrue(attachment(fail, "failed.json").contains("jid0000000002"));
        assertEquals(List.of("jid0000000002"), store.batches().load(bid).statusReport().failedJobs());

        AdminActions admin = new AdminActions(store, Clock.systemUTC());
        admin.requeueJob("jid0000000002", "op");
        await().atMost(Duration.ofSeconds(20)).until(() -> store.batches().jobs(bid, BatchRef.COMPLETED).size() == 2);
        admin.updateReporting(bid, "op");
        assertEquals(BatchState.COMPLETED, awaitEnd(bid));
        await().atMost(Duration.ofSeconds(20)).until(() -> ZK.mail().received().stream()
                .anyMatch(m -> MailServer.subjectOf(m).equals("Ingest: OK -- Submission Processed: " + bid)));
        MimeMessage update = mailWithSubject("Ingest: OK -- Submission Processed: " + bid);
        assertTrue(
                text(update).contains("Update report: 1 job(s) succeeded since the last report (jid0000000002)"),
                text(update));
        assertEquals(2, store.batches().load(bid).statusReport().reports());
    }

    @Test
    void anUploadedPayloadIsNamedAsTheDepositorNamedItNeverByTheServersCopy() throws Exception {
        Path upload = Files.createDirectories(dir.resolve("queue/uploads/5f0c2d0e-upload")).resolve("my thesis.pdf");
        Files.writeString(upload, "%PDF");
        String url = upload.toUri().toString();
        support.failOnce("downloadStep", "jid0000000001", url + ": cannot be read (" + upload + ")");
        String bid = store.batches()
                .create(new BatchSubmission(
                        "demo_content",
                        "depositor",
                        url,
                        "t",
                        "w",
                        null,
                        null,
                        "file",
                        "add",
                        "my thesis.pdf",
                        null,
                        null,
                        null,
                        null,
                        null,
                        "json",
                        null,
                        "2026-11-22T10:00:00Z",
                        null));
        assertEquals(BatchState.FAILED, awaitEnd(bid));
        MimeMessage fail = mailWithSubject("Ingest: FAIL -- Submission Processed: " + bid);
        String failed = attachment(fail, "failed.json");
        assertTrue(
                failed.contains("\"payload\" : \"my thesis.pdf\"")
                        && failed.contains(
                                "\"error_message\" : \"downloading: my thesis.pdf: cannot be read (my thesis.pdf)\""),
                failed);
        assertTrue(
                text(fail)
                        .contains("First failure: jid0000000001: downloading: my thesis.pdf: cannot be read (my"
                                + " thesis.pdf)"),
                text(fail));
        for (String part : List.of(text(fail), failed, attachment(fail, "completed.json"))) {
            assertFalse(part.contains("file:") || part.contains("uploads"), part);
        }
    }

    @Test
    void partialSuppressionDropsTheQueuedMailAndFullSuppressionEveryMail() throws Exception {
        String partial = submit("partial_content", 1);
        assertEquals(BatchState.COMPLETED, awaitEnd(partial));
        mailWithSubject("Ingest: OK -- Submission Processed: " + partial);
        String full = submit("full_content", 1);
        assertEquals(BatchState.COMPLETED, awaitEnd(full));
        assertTrue(ZK.mail().received().stream().map(MailServer::subjectOf)
                .noneMatch(s -> s.contains("Queued: " + partial) || s.endsWith(full)));
    }

    @Test
    void whileTheMailServerIsDownTheBatchWaitsInReportingAndIsReportedWhenItIsBack() throws Exception {
        ZK.mail().down();
        String bid = submit("demo_content", 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> store.batches().load(bid).state() == BatchState.REPORTING);
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3))
                .until(() -> store.batches().load(bid).state() == BatchState.REPORTING);
        ZK.mail().up();
        assertEquals(BatchState.COMPLETED, awaitEnd(bid));
        mailWithSubject("Ingest: OK -- Submission Processed: " + bid);
    }
}
