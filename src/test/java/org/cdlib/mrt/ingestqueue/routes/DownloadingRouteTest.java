package org.cdlib.mrt.ingestqueue.routes;

import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.notFound;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipOutputStream;
import org.apache.camel.component.mock.MockEndpoint;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * routes/downloading.yaml with the real downloadStep against WireMock: the file lands in the job's
 * working directory with its digest checked; a depositor's 404 or a wrong digest fails the job in
 * one line, through error-handling.yaml's expected failures, with no stack trace logged.
 */
class DownloadingRouteTest extends RouteTestSupport {
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();
    MockEndpoint end;

    static String md5(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Runs the route on a job of the one file at {@code path}; returns the job once it left downloading. */
    Job downloaded(String path, String md5) throws Exception {
        end = start("downloading.yaml", "job-downloading");
        String jid = jobIn(JobState.DOWNLOADING, fileJob(HTTP.baseUrl() + path, "sign.txt", "MD5", md5, null), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() != JobState.DOWNLOADING);
        return store.jobs().load(jid);
    }

    /** The job failed with one line naming what went wrong, and nothing logged a stack trace at ERROR. */
    void assertFailedQuietly(Job job, String... mentions) {
        assertEquals(JobState.FAILED, job.state());
        String message = job.status().errorMessage();
        assertTrue(message.startsWith("downloading: "), message);
        assertFalse(message.contains("\n"), "one line: " + message);
        for (String m : mentions) {
            assertTrue(message.contains(m), message + " should name " + m);
        }
        assertEquals(0, end.getReceivedCounter(), "the route did not run on past the failing step");
        assertEquals(List.of(), logs.errorsWithTrace().stream().map(e -> e.getFormattedMessage()).toList(),
                "an expected failure logs no stack trace at ERROR");
    }

    @Test
    void theFileIsFetchedIntoTheWorkingDirectoryWithItsDigestCheckedAndTheJobGoesOn() throws Exception {
        HTTP.stubFor(get(urlEqualTo("/files/dragon.txt")).willReturn(ok("golden dragon")));
        Job job = downloaded("/files/dragon.txt", md5("golden dragon").toUpperCase());
        assertEquals(JobState.PROCESSING, job.state(), String.valueOf(job.status().errorMessage()));
        HTTP.verify(1, getRequestedFor(urlEqualTo("/files/dragon.txt")));
        Path file = Path.of(job.configuration().workingDir(), "producer", "sign.txt");
        assertEquals("golden dragon", Files.readString(file));
        assertEquals(13L, job.spaceNeeded(), "the bytes actually in producer/");
        assertEquals(1, end.getReceivedCounter());
    }

    @Test
    void aDepositorsMissingFileFailsTheJobInOneLineNamingTheUrlAndStatus() throws Exception {
        HTTP.stubFor(get(urlEqualTo("/files/gone.txt")).willReturn(notFound()));
        Job job = downloaded("/files/gone.txt", md5("whatever"));
        assertFailedQuietly(job, HTTP.baseUrl() + "/files/gone.txt", "HTTP 404");
        assertFalse(Files.exists(Path.of(job.configuration().workingDir(), "producer", "sign.txt")));
    }

    @Test
    void aDigestMismatchFailsTheJobNamingIt() throws Exception {
        HTTP.stubFor(get(urlEqualTo("/files/changed.txt")).willReturn(ok("not what was deposited")));
        String expected = md5("what was deposited");
        Job job = downloaded("/files/changed.txt", expected);
        assertFailedQuietly(job, "md5 mismatch", expected, md5("not what was deposited"));
        assertFalse(
                Files.exists(Path.of(job.configuration().workingDir(), "producer", "sign.txt")),
                "a file that fails its check is not kept");
    }

    @Test
    void anEmptyZipFailsTheJobSayingTheContainerHoldsNoFiles() throws Exception {
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        new ZipOutputStream(zip).close(); // a zip of no entries
        HTTP.stubFor(get(urlEqualTo("/files/empty.zip")).willReturn(ok().withBody(zip.toByteArray())));
        end = start("downloading.yaml", "job-downloading");
        JobConfiguration container = new JobConfiguration(
                null,
                "demo_content",
                "tester",
                HTTP.baseUrl() + "/files/empty.zip",
                "container",
                "json",
                "add",
                null,
                "loc1",
                "empty.zip",
                null,
                null,
                null,
                "who",
                "what",
                "when",
                null,
                Map.of());
        String jid = jobIn(JobState.DOWNLOADING, container, 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.jobs().load(jid).state() != JobState.DOWNLOADING);
        assertFailedQuietly(store.jobs().load(jid), "container empty.zip: the container holds no files");
    }
}
