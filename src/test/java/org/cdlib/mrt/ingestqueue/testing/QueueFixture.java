package org.cdlib.mrt.ingestqueue.testing;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one fixture of a test class that runs the queue against real servers
 * ({@code @RegisterExtension static final QueueFixture ZK = new QueueFixture().withHttp();}):
 * a ZooKeeper server for the class with a connected client, the queue's nodes wiped before each
 * test; a fresh directory for each test; and on request a WireMock server for the class (its stubs
 * reset before each test) and an SMTP server (GreenMail) for each test.
 * <p>
 * A test that needs ZooKeeper as new, not only the queue's nodes wiped, asks for
 * {@link #freshServerEachTest()}; that server is the test's own, so it may {@code stop()} and
 * {@code restart()} it (same port, same data). What this does not offer stays in its test, built by
 * hand: a three-server ensemble (chaos, soak, a follower behind), a relay that cuts connections
 * ({@link ZooKeeperRelay}), a session of its own length ({@link QueueTestSupport#client}).
 */
public class QueueFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private boolean withMail;
    private boolean serverEachTest;
    private boolean keepNodes;
    private TestingServer server;
    private CuratorFramework client;
    private WireMockServer http;
    private MailServer mail;
    private Path dir;
    private Path classDir;
    private final List<CuratorFramework> otherClients = new ArrayList<>();

    /**
     * Adds a WireMock server on a free loopback port, kept for the class, its stubs and requests reset
     * before each test. Made here, started before the class: a test may keep it in a static field.
     */
    public QueueFixture withHttp() {
        http = new WireMockServer(WireMockConfiguration.options().dynamicPort());
        return this;
    }

    /** Adds an SMTP server (GreenMail) on a free loopback port, new for each test. */
    public QueueFixture withMail() {
        withMail = true;
        return this;
    }

    /** A new ZooKeeper server for each test instead of one for the class, which the test may stop and restart. */
    public QueueFixture freshServerEachTest() {
        serverEachTest = true;
        return this;
    }

    /**
     * The queue's nodes kept from test to test, for a class whose one service runs across its tests
     * ({@code RunningApi}): they are that service's, and wiping them under it would race its work.
     */
    public QueueFixture keepNodesBetweenTests() {
        keepNodes = true;
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (!serverEachTest) {
            startZooKeeper();
        }
        if (http != null) {
            http.start();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (serverEachTest) {
            startZooKeeper();
        } else if (!keepNodes) {
            QueueTestSupport.wipe(client);
        }
        if (http != null) {
            http.resetAll();
        }
        if (withMail) {
            mail = new MailServer();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        otherClients.forEach(CuratorFramework::close);
        otherClients.clear();
        if (mail != null) {
            mail.close();
            mail = null;
        }
        if (serverEachTest) {
            stopZooKeeper();
        }
        delete(dir);
        dir = null;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (http != null) {
            http.stop();
        }
        if (!serverEachTest) {
            stopZooKeeper();
        }
        delete(classDir);
        classDir = null;
    }

    public TestingServer server() {
        return server;
    }

    public String connectString() {
        return server.getConnectString();
    }

    /** The fixture's client of the server (session timeout 10 s), connected. */
    public CuratorFramework client() {
        return client;
    }

    /**
     * A client of its own session on this server (another host, Merritt's tools beside us), connected;
     * closed after the test.
     */
    public CuratorFramework otherClient() {
        CuratorFramework other = QueueTestSupport.client(server);
        otherClients.add(other);
        return other;
    }

    /** A started queue store on this server with working directories under {@code home}. */
    public QueueStore store(Path home) {
        return QueueTestSupport.store(client, home);
    }

    /**
     * This test's own directory, made on the first call (a test instance's field initializer may
     * take it: the instance is made before the test's callbacks run), removed after the test.
     */
    public Path dir() {
        if (dir == null) {
            dir = temporary();
        }
        return dir;
    }

    private static Path temporary() {
        try {
            return Files.createTempDirectory("queue-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The test class's own directory, kept across its tests (a service started once for the class
     * works in it), made on the first call, removed after the class.
     */
    public Path classDir() {
        if (classDir == null) {
            classDir = temporary();
        }
        return classDir;
    }

    /** The WireMock server ({@link #withHttp}). */
    public WireMockServer http() {
        return http;
    }

    /** This test's SMTP server ({@link #withMail}). */
    public MailServer mail() {
        return mail;
    }

    private void startZooKeeper() throws Exception {
        server = new TestingServer(true);
        client = QueueTestSupport.client(server);
    }

    private void stopZooKeeper() throws IOException {
        client.close();
        server.close();
    }

    private static void delete(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
