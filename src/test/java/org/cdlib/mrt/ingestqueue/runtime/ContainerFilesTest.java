package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The image and the compose trial, checked where no Docker daemon runs: compose.yaml parsed (a
 * ZooKeeper ensemble of 3, two instances sharing the queue's volume, PostgreSQL), the Dockerfile
 * and .dockerignore read. Every environment variable given to the service is a configuration key
 * the service reads (Camel's properties take {@code INGEST_HTTP_PORT} for {@code ingest.http.port}).
 */
class ContainerFilesTest {
    /** A key as an environment variable, as Camel's properties look it up: upper case, '.' and '-' as '_'. */
    static String env(String key) {
        return key.toUpperCase().replace('.', '_').replace('-', '_');
    }

    /** The configuration keys the service reads: those named in its sources, application.properties and routes. */
    static Set<String> keysRead() throws Exception {
        Set<String> keys = new TreeSet<>();
        Pattern key = Pattern.compile(
                "\"((?:ingest|zookeeper|camel)\\.[a-z0-9.-]+[a-z0-9])|\\{\\{((?:ingest|zookeeper)\\.[a-z0-9.-]+)[:}]"
                        + "|^((?:ingest|zookeeper|camel)\\.[a-z0-9.-]+)\\s*=",
                Pattern.MULTILINE);
        List<Path> files = new ArrayList<>(List.of(Path.of("application.properties")));
        for (Path root : List.of(Path.of("src/main/java"), Path.of("routes"))) {
            try (Stream<Path> s = Files.walk(root)) {
                s.filter(Files::isRegularFile).forEach(files::add);
            }
        }
        for (Path f : files) {
            Matcher m = key.matcher(Files.readString(f));
            while (m.find()) {
                keys.add(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3));
            }
        }
        return keys;
    }

    static void assertReadByTheService(String where, String name, Set<String> keys) {
        assertTrue(
                name.equals("JAVA_OPTS") || keys.stream().anyMatch(k -> env(k).equals(name)),
                where + ": " + name + " is not a configuration key the service reads");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<String> list(Object o) {
        return o == null ? List.of() : (List<String>) o;
    }

    static Map<String, Object> compose() throws Exception {
        return map(new Load(LoadSettings.builder().build()).loadFromString(Files.readString(Path.of("compose.yaml"))));
    }

    @Test
    void theComposeTrialIsAnEnsembleOfThreeTwoInstancesAndPostgres() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        List<String> zk = services.keySet().stream()
                .filter(s -> String.valueOf(map(services.get(s)).get("image")).startsWith("zookeeper:"))
                .toList();
        assertEquals(3, zk.size(), "a ZooKeeper ensemble of 3: " + services.keySet());
        Set<String> ids = new HashSet<>();
        for (String s : zk) {
            Map<String, Object> e = map(map(services.get(s)).get("environment"));
            ids.add(String.valueOf(e.get("ZOO_MY_ID")));
            String servers = String.valueOf(e.get("ZOO_SERVERS"));
            for (String other : zk) {
                assertTrue(
                        servers.matches(".*server\\.\\d=" + other + ":2888:3888;2181.*"),
                        s + " does not know " + other + ": " + servers);
            }
        }
        assertEquals(Set.of("1", "2", "3"), ids);
        for (String s : services.keySet()) {
            assertEquals("unless-stopped", map(services.get(s)).get("restart"), s + " has a restart policy");
        }
        for (String s : zk) {
            // healthy once it serves: srvr (whitelisted) names a mode only while the ensemble has a quorum
            Map<String, Object> svc = map(services.get(s));
            assertTrue(String.valueOf(map(svc.get("environment")).get("ZOO_4LW_COMMANDS_WHITELIST")).contains("srvr"),
                    s + " answers srvr");
            String check = String.join(" ", list(map(svc.get("healthcheck")).get("test")));
            assertTrue(check.contains("printf srvr") && check.contains("^Mode: "), s + ": " + check);
        }
        List<String> pg = services.keySet().stream()
                .filter(s -> String.valueOf(map(services.get(s)).get("image")).startsWith("postgres:"))
                .toList();
        assertEquals(1, pg.size());
        Map<String, Object> pgEnv = map(map(services.get(pg.get(0))).get("environment"));

        List<String> ingest = services.keySet().stream()
                .filter(s -> ".".equals(map(services.get(s)).get("build")))
                .toList();
        assertEquals(2, ingest.size(), "two instances of the service built here: " + services.keySet());
        Set<String> keys = keysRead();
        Set<String> hostIds = new HashSet<>();
        Set<String> hostPorts = new HashSet<>();
        Set<String> dataVolumes = new HashSet<>();
        for (String s : ingest) {
            Map<String, Object> svc = map(services.get(s));
            Map<String, Object> env = map(svc.get("environment"));
            env.keySet().forEach(name -> assertReadByTheService("compose.yaml " + s, name, keys));
            assertEquals(
                    new TreeSet<>(zk.stream().map(z -> z + ":2181").toList()),
                    new TreeSet<>(
                            List.of(String.valueOf(env.get("ZOOKEEPER_CONNECT")).split(","))),
                    s + " connects to the ensemble");
            assertEquals(
                    "jdbc:postgresql://" + pg.get(0) + ":5432/" + pgEnv.get("POSTGRES_DB"),
                    env.get("INGEST_INVENTORY_LOCAL_URL"));
            assertEquals(pgEnv.get("POSTGRES_USER"), env.get("INGEST_INVENTORY_LOCAL_USER"));
            assertEquals(pgEnv.get("POSTGRES_PASSWORD"), env.get("INGEST_INVENTORY_LOCAL_PASSWORD"));
            assertTrue(hostIds.add(String.valueOf(env.get("INGEST_HOST_ID"))), "each instance its own host id");
            String port = String.valueOf(env.get("INGEST_HTTP_PORT"));
            List<String> ports = list(svc.get("ports"));
            assertEquals(1, ports.size());
            String[] mapping = ports.get(0).split(":");
            assertEquals(port, mapping[1], s + " publishes the port it listens on");
            assertTrue(hostPorts.add(mapping[0]), "each instance its own host port");
            assertEquals(
                    "http://localhost:" + mapping[0],
                    env.get("INGEST_STATUS_BASE_URL"),
                    "depositors reach " + s + " from outside");
            assertEquals(
                    "http://" + s + ":" + port + "/files",
                    env.get("INGEST_FILES_BASE_URL"),
                    "storage reaches " + s + " by its name");
            List<String> volumes = list(svc.get("volumes"));
            volumes.stream().filter(v -> v.endsWith(":/data")).forEach(v -> dataVolumes.add(v.split(":")[0]));
            assertTrue(
                    volumes.contains("./profiles:/profiles:ro")
                            && volumes.contains("./routes:/opt/ingest-queue/routes:ro"),
                    volumes.toString());
            Map<String, Object> after = map(svc.get("depends_on"));
            assertNotNull(after.get(pg.get(0)));
            for (String z : zk) {
                assertEquals(Map.of("condition", "service_healthy"), after.get(z), s + " starts once " + z + " serves");
            }
            ingest.stream().filter(after::containsKey).forEach(other -> assertEquals(
                    Map.of("condition", "service_healthy"), after.get(other), s + " starts once " + other + " is up"));
        }
        assertEquals(1, dataVolumes.size(), "the instances share one ingest.home and storage: " + dataVolumes);
        assertTrue(map(compose().get("volumes")).containsKey(dataVolumes.iterator().next()));
    }

    @Test
    void theImageChecksTheConfiguredPortMountsRoutesAndProfilesAndIsConfiguredByEnvironment() throws Exception {
        String docker = Files.readString(Path.of("Dockerfile"));
        String check = docker.substring(docker.indexOf("HEALTHCHECK"));
        check = check.substring(0, check.indexOf("\n", check.indexOf("CMD")));
        assertTrue(check.contains("/dev/tcp/127.0.0.1/${INGEST_HTTP_PORT:-8080}") && !check.contains("/8080 "), check);
        Matcher volume = Pattern.compile("VOLUME \\[(.*)]").matcher(docker);
        assertTrue(volume.find());
        assertEquals(
                Set.of("\"/data\"", "\"/profiles\"", "\"/opt/ingest-queue/routes\""),
                Set.of(volume.group(1).split(",\\s*")));
        assertTrue(
                docker.contains("WORKDIR /opt/ingest-queue")
                        && docker.contains("COPY --chown=ingest:ingest routes/ routes/")
                        && docker.contains("COPY --chown=ingest:ingest profiles/ /profiles/")
                        && docker.contains("USER ingest"),
                "owned by the non-root user");
        Matcher env = Pattern.compile("^ENV (.*?)(?<!\\\\)$", Pattern.MULTILINE | Pattern.DOTALL).matcher(docker);
        assertTrue(env.find());
        Set<String> keys = keysRead();
        Matcher names = Pattern.compile("([A-Z][A-Z0-9_]+)=").matcher(env.group(1));
        int n = 0;
        for (; names.find(); n++) {
            assertReadByTheService("Dockerfile ENV", names.group(1), keys);
        }
        assertTrue(n >= 7, "the image's places are environment, which docker run -e overrides: " + env.group(1));
        String entry = docker.substring(docker.indexOf("ENTRYPOINT"));
        assertFalse(
                entry.contains("-Dingest.") || entry.contains("-Dzookeeper."),
                "a -D would win over docker run -e: " + entry);
        assertFalse(entry.contains("-Xmx"), "the heap comes from the environment (JAVA_OPTS): " + entry);
        assertTrue(entry.contains("exec java $JAVA_OPTS -jar ingest-queue.jar"), "java as process 1: " + entry);
        Matcher javaOpts = Pattern.compile("^ENV JAVA_OPTS=\"(.*)\"$", Pattern.MULTILINE).matcher(docker);
        assertTrue(javaOpts.find(), "the image's JVM options, which docker run -e JAVA_OPTS=… replaces");
        assertTrue(javaOpts.group(1).contains("-XX:MaxRAMPercentage=") && !javaOpts.group(1).contains("-Xmx"),
                "by default a share of the container's memory: " + javaOpts.group(1));

        List<String> ignored = Files.readAllLines(Path.of(".dockerignore")).stream().map(String::strip).toList();
        assertTrue(
                ignored.containsAll(List.of(".git", "target/", "data/", ".secrets", "**/.secrets")),
                ignored.toString());

        String readme = Files.readString(Path.of("README.md"));
        String run = readme.substring(
                readme.indexOf("docker run"), readme.indexOf("ingest-queue\n", readme.indexOf("docker run")));
        for (String shown : List.of(
                "INGEST_STATUS_BASE_URL=", "INGEST_FILES_BASE_URL=", ":/opt/ingest-queue/routes", ":/profiles")) {
            assertTrue(run.contains(shown), "the README's docker run shows " + shown + ": " + run);
        }
    }
}
