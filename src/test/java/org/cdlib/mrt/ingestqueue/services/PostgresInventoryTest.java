package org.cdlib.mrt.ingestqueue.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.cdlib.mrt.ingestqueue.objects.ManifestFile;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local inventory on a real PostgreSQL (embedded, from Maven): the same schema and calls as
 * H2, recording twice is recording once, and two hosts binding one local id at once end with
 * one binding that both see.
 */
class PostgresInventoryTest {
    static EmbeddedPostgres pg;
    static String url;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        pg = EmbeddedPostgres.builder().start();
        url = pg.getJdbcUrl("postgres", "postgres");
    }

    @AfterAll
    static void stop() throws Exception {
        pg.close();
    }

    static Profile profile() throws Exception {
        Path p = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(p.resolve("demo_content"), "ProfileID: demo_content\nCollection.1: ark:/99999/fk4c\n");
        return new ProfileDirectory(p).require("demo_content");
    }

    @Test
    void objectsVersionsFilesAndLocalIdsAreRecordedOnceEvenWhenRecordedTwice() throws Exception {
        try (H2Inventory inv = new H2Inventory(url, "postgres", "postgres")) {
            Profile profile = profile();
            StoredVersion v = new StoredVersion("ark:/99999/fk4pg1", 1, "http://store/manifest");
            List<ManifestFile> files = List.of(new ManifestFile("producer/a.txt", 5, "md5",
                    "5d41402abc4b2a76b9719d911017c592", "text/plain"));
            inv.add(profile, v, List.of("pg-local-1"), files);
            inv.add(profile, v, List.of("pg-local-1"), files); // an add whose answer was lost, sent again
            assertEquals(1, inv.versions("ark:/99999/fk4pg1"));
            assertEquals(files, inv.files("ark:/99999/fk4pg1"));
            assertEquals("ark:/99999/fk4pg1", inv.primaryFor("demo_content", "pg-local-1").orElseThrow());
        }
    }

    @Test
    void twoHostsBindingOneLocalIdAtOnceBothEndWithTheFirstBinding() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (H2Inventory a = new H2Inventory(url, "postgres", "postgres");
                H2Inventory b = new H2Inventory(url, "postgres", "postgres")) {
            for (int round = 0; round < 20; round++) {
                String localId = "race-" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<String>> results = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    H2Inventory host = i % 2 == 0 ? a : b;
                    String minted = "ark:/99999/fk4r" + round + "x" + i;
                    Callable<String> bind = () -> {
                        go.await();
                        return host.bind("demo_content", localId, minted);
                    };
                    results.add(pool.submit(bind));
                }
                go.countDown();
                Set<String> seen = new HashSet<>();
                for (Future<String> f : results) {
                    seen.add(f.get());
                }
                assertEquals(1, seen.size(), "every host ends with the one binding: " + seen);
                assertEquals(seen.iterator().next(), a.primaryFor("demo_content", localId).orElseThrow());
                assertTrue(seen.iterator().next().startsWith("ark:/99999/fk4r" + round + "x"));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
