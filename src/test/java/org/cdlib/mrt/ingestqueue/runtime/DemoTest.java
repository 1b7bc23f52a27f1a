package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ocfl.api.model.ObjectVersionId;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;
import org.cdlib.mrt.ingestqueue.services.OcflStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's demo: the bundled batch through every route with the local services, end to end. */
class DemoTest {
    @TempDir
    Path dir;

    @Test
    void theDemoBatchCompletesAndItsObjectsAreInStorageAndInventoryWithTheirDigests() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Demo.run(dir, Map.of("camel.main.routes-include-pattern", "file:routes/*.yaml"),
                Duration.ofMinutes(2), new PrintStream(out, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, printed);
        assertTrue(printed.contains("notify -> completed"), printed);
        assertTrue(
                printed.contains("\"successful_jobs\":[\"jid0000000001\",\"jid0000000002\",\"jid0000000003\"]"),
                printed);

        Map<String, String> expected = new HashMap<>();
        for (String f : new String[] {"dragon.txt", "dragon.csv", "letters-1.txt", "notes.html"}) {
            try (InputStream in = Demo.class.getResourceAsStream("/demo/" + f)) {
                expected.put(
                        f,
                        HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes())));
            }
        }
        OcflStorage storage = new OcflStorage(dir.resolve("storage"));
        int files = 0;
        try (Connection c = DriverManager.getConnection(
                        "jdbc:h2:file:" + dir.resolve("inventory").toAbsolutePath() + "/inventory", "sa", "");
                ResultSet r = c.createStatement()
                        .executeQuery("SELECT f.ark, f.name, f.digest_value FROM files f WHERE f.name LIKE 'producer/%'"
                                + " ORDER BY f.name")) {
            while (r.next()) {
                String name = r.getString(2).substring("producer/".length());
                String leaf = name.substring(name.lastIndexOf('/') + 1);
                assertEquals(expected.get(leaf), r.getString(3), "inventory digest of " + name);
                try (InputStream in = storage.repository().getObject(ObjectVersionId.head(r.getString(1)))
                        .getFile(r.getString(2)).getStream()) {
                    assertEquals(expected.get(leaf),
                            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes())),
                            "stored bytes of " + name);
                }
                files++;
            }
        }
        assertEquals(4, files, "every producer file of the three objects is recorded");
        try (Stream<Path> outbox = Files.list(dir.resolve("outbox"))) {
            assertTrue(outbox.anyMatch(p -> p.getFileName().toString().contains("Submission-Processed")),
                    "the completion mail is in the outbox");
        }
        try (Stream<Path> batches = Files.list(dir.resolve("queue"))) {
            Path batch = batches.filter(p -> p.getFileName().toString().matches("bid\\d{10}"))
                    .findFirst()
                    .orElseThrow();
            try (Stream<Path> left = Files.list(batch)) {
                assertEquals(0, left.count(), "completed jobs leave no working directory");
            }
        }
    }
}
