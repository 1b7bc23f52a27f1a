package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.config;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.lockedJob;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.manifest;
import static org.cdlib.mrt.ingestqueue.steps.StepTestSupport.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.cdlib.mrt.ingestqueue.fetch.AddressPolicy;
import org.cdlib.mrt.ingestqueue.fetch.DownloadRecord;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;
import org.cdlib.mrt.ingestqueue.queue.lease.HeldJob;
import org.junit.jupiter.api.Test;

/**
 * Storing reads no downloaded file: the download digests each file by what storing needs (SHA-256, storage's
 * SHA-512) and records them with its size and time; storing takes them while the file still matches the record,
 * and reads a file that does not.
 */
class DownloadDigestsTest extends WebStepTest {
    static final FetchSettings FAST = FetchSettings.defaults()
            .withAllow(AddressPolicy.LOOPBACK)
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5))
            .withRetries(0, Duration.ZERO);
    static final List<DigestAlgorithm> STORED = List.of(DigestAlgorithm.SHA256, DigestAlgorithm.SHA512);

    final byte[] a = bytes(700_000, 1);
    final byte[] b = bytes(5_000, 2);

    static byte[] bytes(int n, long seed) {
        byte[] x = new byte[n];
        new Random(seed).nextBytes(x);
        return x;
    }

    static String hex(DigestAlgorithm alg, byte[] bytes) {
        DigestAlgorithm.Digester d = alg.newDigester();
        d.update(bytes, 0, bytes.length);
        return d.hex();
    }

    /** A two-file object (one in a folder, one with a depositor's md5) downloaded; its working directory. */
    WorkingDirectory downloaded() throws Exception {
        web.stubFor(get(urlEqualTo("/f/a.bin")).willReturn(ok().withBody(a)));
        web.stubFor(get(urlEqualTo("/f/b.bin")).willReturn(ok().withBody(b)));
        web.stubFor(get(urlEqualTo("/obj.checkm")).willReturn(ok(manifest(
                row(url("/f/a.bin"), null, null, (long) a.length, "a.bin"),
                row(url("/f/b.bin"), "md5", hex(DigestAlgorithm.MD5, b), (long) b.length, "sub dir/b.bin")))));
        HeldJob lock = lockedJob(store, config(url("/obj.checkm"), "object_manifest"), 5);
        DownloadStep step = new DownloadStep(new Fetcher(FAST, home), home, FreeSpace.of(home), 1, STORED);
        assertEquals(a.length + b.length, step.download(lock.jid(), lock.job().configuration()));
        return new WorkingDirectory(Path.of(lock.job().configuration().workingDir()));
    }

    static StorageManifest build(WorkingDirectory wd, StorageManifest.KnownDigests known) throws Exception {
        return StorageManifest.build(wd.root(), (f, name) -> name, 0, DigestAlgorithm.SHA512, known);
    }

    @Test
    void theDigestsRecordedAreTheFilesDigestsAndTheManifestIsTheOneReadingWouldWrite() throws Exception {
        WorkingDirectory wd = downloaded();
        DownloadRecord record = DownloadRecord.of(wd);
        Map<String, String> ofA = record.digests("a.bin", wd.producer().resolve("a.bin"));
        assertEquals(hex(DigestAlgorithm.SHA256, a), ofA.get("sha-256"));
        assertEquals(hex(DigestAlgorithm.SHA512, a), ofA.get("sha-512"));
        Map<String, String> ofB = record.digests("sub dir/b.bin", wd.producer().resolve("sub dir/b.bin"));
        assertEquals(hex(DigestAlgorithm.SHA256, b), ofB.get("sha-256"));
        assertEquals(hex(DigestAlgorithm.MD5, b), ofB.get("md5"), "the depositor's digest is kept beside them");

        StorageManifest read = build(wd, StorageManifest.KnownDigests.NONE);
        StorageManifest recorded = build(wd, StoreStep.downloaded(wd));
        assertEquals(read.text(), recorded.text());
        assertEquals(read.alsoDigests(), recorded.alsoDigests());
    }

    /** Proof that storing took them and read nothing: digests that are not the file's, but recorded for it, show. */
    @Test
    void recordedDigestsAreTakenWithoutReadingTheFile() throws Exception {
        WorkingDirectory wd = downloaded();
        StorageManifest.KnownDigests told = (name, file) -> name.equals("producer/a.bin")
                ? Map.of("sha-256", "0".repeat(64), "sha-512", "1".repeat(128)) : Map.of();
        StorageManifest m = build(wd, told);
        assertTrue(m.text().contains(" | sha-256 | " + "0".repeat(64) + " | " + a.length + " | "), m.text());
        assertEquals("1".repeat(128), m.alsoDigests().get("producer/a.bin"));
        assertEquals(hex(DigestAlgorithm.SHA512, b), m.alsoDigests().get("producer/sub dir/b.bin"));
        // only one of the two known: the file is read for both
        StorageManifest half = build(wd, (name, file) -> Map.of("sha-256", "0".repeat(64)));
        assertEquals(hex(DigestAlgorithm.SHA256, a), half.files().get(0).digestValue());
    }

    /** A file changed since its download (other bytes, same size, a new time) is read: its record is not trusted. */
    @Test
    void aRecordThatDoesNotMatchTheFileIsIgnoredAndTheFileRead() throws Exception {
        WorkingDirectory wd = downloaded();
        Path fileA = wd.producer().resolve("a.bin");
        FileTime before = Files.getLastModifiedTime(fileA);
        byte[] other = bytes(a.length, 9);
        Files.write(fileA, other);
        Files.setLastModifiedTime(fileA, FileTime.fromMillis(before.toMillis() + 2_000));
        assertEquals(Map.of(), DownloadRecord.of(wd).digests("a.bin", fileA));

        StorageManifest m = build(wd, StoreStep.downloaded(wd));
        assertEquals(hex(DigestAlgorithm.SHA256, other), m.files().get(0).digestValue());
        assertNotEquals(hex(DigestAlgorithm.SHA256, a), m.files().get(0).digestValue());
        assertEquals(hex(DigestAlgorithm.SHA512, other), m.alsoDigests().get("producer/a.bin"));
        // another size, the time put back as recorded: still read
        Files.write(fileA, b);
        Files.setLastModifiedTime(fileA, before);
        assertEquals(Map.of(), DownloadRecord.of(wd).digests("a.bin", fileA));
        assertEquals(hex(DigestAlgorithm.SHA512, b), build(wd, StoreStep.downloaded(wd)).alsoDigests()
                .get("producer/a.bin"));
    }

    @Test
    void noRecordMeansEveryFileIsRead() throws Exception {
        WorkingDirectory wd = downloaded();
        Files.delete(wd.downloads().resolve(DownloadRecord.FILE));
        assertEquals(build(wd, StorageManifest.KnownDigests.NONE).text(), build(wd, StoreStep.downloaded(wd)).text());
    }
}
