package org.cdlib.mrt.ingestqueue.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A profiles directory as CDL keeps it: real profiles beside a TEMPLATE-PROFILE with ${...}
 * placeholders, an index.yaml and a subfolder. The real ones load, each other file is skipped
 * with one warning; a directory the service cannot serve from stops the start at once.
 */
class RealProfileDirectoryTest {
    static final String MERRITT_PROFILE = """
        # Merritt Demo
        ProfileID: merritt_demo
        ProfileDescription: Merritt demo collection
        Identifier-scheme: ARK
        Identifier-namespace: 99999
        Collection.1: ark:/99999/fk4coll
        Type: MRT-curatorial
        Role: MRT-content
        Aggregate:
        Owner: ark:/99999/fk4owner
        Notification.1: curator@example.org
        # === START Handlers ===
        HandlerInitialize.1: org.cdlib.mrt.ingest.handlers.initialize.HandlerInitialize
        HandlerMinter.1: org.cdlib.mrt.ingest.handlers.process.HandlerMinter
        HandlerTransfer.1: org.cdlib.mrt.ingest.handlers.process.HandlerTransfer
        HandlerNotification.1: org.cdlib.mrt.ingest.handlers.notification.HandlerNotification
        %s
        CallbackURL: http://localhost:1/cb
        StorageService: http://localhost:1/store
        StorageNode: 7777
        """;

    @TempDir
    Path dir;
    ListAppender<ILoggingEvent> log;
    Logger logger;

    @BeforeEach
    void capture() {
        logger = (Logger) LoggerFactory.getLogger(ProfileDirectory.class);
        log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void release() {
        logger.detachAppender(log);
    }

    List<String> warnings() {
        List<String> w = new ArrayList<>();
        for (ILoggingEvent e : log.list) {
            if (e.getLevel() == Level.WARN) {
                w.add(e.getFormattedMessage());
            }
        }
        return w;
    }

    void cdlDirectory() throws Exception {
        Files.writeString(dir.resolve("merritt_demo"), MERRITT_PROFILE.formatted(
                "HandlerNotification.2: org.cdlib.mrt.ingest.handlers.notification.HandlerCallback"));
        Files.writeString(dir.resolve("no_callback"), MERRITT_PROFILE.formatted(
                "#HandlerNotification.2: org.cdlib.mrt.ingest.handlers.notification.HandlerCallback")
                .replace("merritt_demo", "no_callback"));
        Files.writeString(dir.resolve("TEMPLATE-PROFILE"), """
            # ${DESCRIPTION} - ${ARK}
            ProfileID: ${NAME}
            Collection.1: ${COLLECTION}
            Notification.${NOTIFICATIONENUM}: ${NOTIFICATION}
            StorageNode: ${NODE}
            """);
        Files.writeString(dir.resolve("index.yaml"), "profiles:\n  - merritt_demo\n  - no_callback\n");
        Path sub = Files.createDirectories(dir.resolve("admin"));
        Files.writeString(sub.resolve("some_admin_profile"), "ProfileID: admin\n");
    }

    @Test
    void theRealProfilesLoadAndEveryOtherFileIsSkippedWithOneWarning() throws Exception {
        cdlDirectory();
        ProfileDirectory profiles = new ProfileDirectory(dir);
        assertEquals(
                List.of("merritt_demo", "no_callback"),
                profiles.all().stream().map(Profile::id).sorted().toList());
        List<String> w = warnings();
        assertEquals(3, w.size(), w.toString());
        assertTrue(w.stream().anyMatch(m -> m.contains("skipping TEMPLATE-PROFILE: a template")), w.toString());
        assertTrue(w.stream().anyMatch(m -> m.contains("skipping index.yaml")), w.toString());
        assertTrue(w.stream().anyMatch(m -> m.contains("skipping admin: a folder")), w.toString());

        profiles.reload();
        assertEquals(3, warnings().size(), "a reload does not repeat the warnings");
        assertEquals(2, profiles.all().size());
    }

    @Test
    void handlerCallbackDecidesWhetherAProfileIsCalledBack() throws Exception {
        cdlDirectory();
        ProfileDirectory profiles = new ProfileDirectory(dir);
        assertTrue(profiles.require("merritt_demo").callsBack());
        assertFalse(
                profiles.require("no_callback").callsBack(), "a commented-out HandlerCallback turns the callback off");
        assertFalse(profiles.require("no_callback").hasHandler("HandlerCallback"));
        assertTrue(profiles.require("no_callback").hasHandler("HandlerMinter"));
        assertTrue(Profile.parse("ProfileID: short\nCallbackURL: http://h/cb\n", "short").callsBack(),
                "a profile without Handler lines is called back whenever it has a URL");
        assertFalse(Profile.parse("ProfileID: short\n", "short").callsBack());
    }

    @Test
    void aDirectoryTheServiceCannotServeFromIsRefusedWithTheReason() throws Exception {
        Files.writeString(dir.resolve("TEMPLATE-PROFILE"), "ProfileID: ${NAME}\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ProfileDirectory.forStartup(dir));
        assertTrue(e.getMessage().contains("holds no usable profile"), e.getMessage());
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        e = assertThrows(IllegalStateException.class, () -> ProfileDirectory.forStartup(file));
        assertTrue(e.getMessage().contains("is not a directory"), e.getMessage());
        Files.writeString(dir.resolve("broken"), "ProfileID: broken\nStorageNode: seven\n");
        e = assertThrows(IllegalStateException.class, () -> ProfileDirectory.forStartup(dir));
        assertTrue(e.getMessage().contains("broken") && e.getMessage().contains("StorageNode"), e.getMessage());
        Files.delete(dir.resolve("broken"));
        Files.writeString(dir.resolve("good"), "ProfileID: good\nStorageNode: 1\n");
        assertEquals(1, ProfileDirectory.forStartup(dir).all().size());
    }

    @Test
    void theServiceStartedOnAProfilesDirectoryWithOnlyATemplateExitsNonZeroAtOnceNamingTheReason() throws Exception {
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(profiles.resolve("TEMPLATE-PROFILE"), "ProfileID: ${NAME}\n");
        Files.writeString(profiles.resolve("index.yaml"), "profiles: []\n");
        Path work = Files.createDirectories(dir.resolve("work"));
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Dingest.profiles=" + profiles, "-Dingest.home=" + dir.resolve("queue"),
                "-Dzookeeper.embedded.dir=" + dir.resolve("zk"), "-Dzookeeper.embedded.port=0", "-Dingest.http.port=0",
                "org.cdlib.mrt.ingestqueue.Main");
        Process p = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.txt").toFile()).start();
        boolean ended = p.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        String out = Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
        assertTrue(ended, "the service did not exit within 90 s:\n" + out);
        assertTrue(p.exitValue() != 0, out);
        assertTrue(out.contains("ingest-queue cannot start: ingest.profiles " + profiles.toAbsolutePath()
                + " holds no usable profile"), out);
        assertFalse(Files.exists(dir.resolve("zk")), "ZooKeeper was never started");
    }
}
