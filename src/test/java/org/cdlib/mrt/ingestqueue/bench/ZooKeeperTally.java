package org.cdlib.mrt.ingestqueue.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TCP relay in front of a ZooKeeper server that counts the requests the service sends, by
 * request type and path shape (ids replaced by {@code JID}, {@code BID}, {@code N}), each op of a
 * {@code multi} counted on its own: which calls a job costs, for {@code -Dbench.tally=true}
 * ({@link RealPathBenchmark}). Answers pass through untouched; the relay reads only requests.
 */
final class ZooKeeperTally implements AutoCloseable {
    private static final Map<Integer, String> TYPES = Map.ofEntries(
            Map.entry(1, "create"),
            Map.entry(2, "delete"),
            Map.entry(3, "exists"),
            Map.entry(4, "getData"),
            Map.entry(5, "setData"),
            Map.entry(6, "getACL"),
            Map.entry(8, "getChildren"),
            Map.entry(9, "sync"),
            Map.entry(11, "ping"),
            Map.entry(12, "getChildren2"),
            Map.entry(13, "check"),
            Map.entry(14, "multi"),
            Map.entry(15, "create2"),
            Map.entry(19, "createContainer"),
            Map.entry(21, "createTTL"),
            Map.entry(22, "multiRead"),
            Map.entry(101, "setWatches"),
            Map.entry(105, "setWatches2"),
            Map.entry(106, "addWatch"),
            Map.entry(-11, "closeSession"));
    private final ServerSocket listen;
    private final String upstreamHost;
    private final int upstreamPort;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final LongAdder requests = new LongAdder();

    ZooKeeperTally(String upstream) throws IOException {
        this.upstreamHost = upstream.substring(0, upstream.lastIndexOf(':'));
        this.upstreamPort = Integer.parseInt(upstream.substring(upstream.lastIndexOf(':') + 1));
        this.listen = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "zk-tally");
        t.setDaemon(true);
        t.start();
    }

    String connectString() {
        return "127.0.0.1:" + listen.getLocalPort();
    }

    void reset() {
        counts.clear();
        requests.reset();
    }

    /**
     * Requests per job by type and path, most first, and the total (requests, and ops with a multi's ops each counted).
     */
    void print(int jobs) {
        long ops = counts.values().stream().mapToLong(LongAdder::sum).sum();
        System.out.printf(
                "  ZooKeeper requests per job (relay count): %.1f requests, %.1f ops (each op of a multi counted)%n",
                requests.sum() / (double) jobs, ops / (double) jobs);
        TreeMap<Long, List<String>> byCount = new TreeMap<>(Comparator.reverseOrder());
        counts.forEach((k, v) -> byCount.computeIfAbsent(v.sum(), x -> new ArrayList<>()).add(k));
        byCount.forEach((n, keys) ->
                keys.stream().sorted().forEach(k -> System.out.printf("    %7.2f  %s%n", n / (double) jobs, k)));
    }

    private void accept() {
        while (!listen.isClosed()) {
            try {
                Socket client = listen.accept();
                Socket server = new Socket(upstreamHost, upstreamPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                Thread up = new Thread(() -> relayRequests(client, server), "zk-tally-up");
                Thread down = new Thread(() -> copy(server, client), "zk-tally-down");
                up.setDaemon(true);
                down.setDaemon(true);
                up.start();
                down.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void relayRequests(Socket client, Socket server) {
        try (DataInputStream in = new DataInputStream(client.getInputStream());
                OutputStream out = server.getOutputStream()) {
            boolean first = true; // the connect request has no header
            while (true) {
                int len = in.readInt();
                byte[] frame = new byte[len];
                in.readFully(frame);
                if (!first) {
                    tally(ByteBuffer.wrap(frame));
                }
                first = false;
                ByteBuffer b = ByteBuffer.allocate(4 + len).putInt(len).put(frame);
                out.write(b.array());
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            closeBoth(client, server);
        }
    }

    private void tally(ByteBuffer b) {
        b.getInt(); // xid
        int type = b.getInt();
        requests.increment();
        if (type == 14 || type == 22) {
            String kind = TYPES.get(type);
            while (b.remaining() >= 9) {
                int op = b.getInt();
                boolean done = b.get() != 0;
                b.getInt(); // err
                if (done || op == -1) {
                    break;
                }
                String path = string(b);
                count(kind + "." + TYPES.getOrDefault(op, "op" + op), path);
                skipOp(b, op);
            }
            return;
        }
        String path = type == 11 || type == -11 || type == 101 || type == 105 || b.remaining() < 4 ? "" : string(b);
        count(TYPES.getOrDefault(type, "type" + type), path);
    }

    /** Past an op's fields after its path, as the jute records lay them out. */
    private static void skipOp(ByteBuffer b, int op) {
        switch (op) {
            case 1, 15, 19, 21 -> {
                skipBuffer(b);
                int acls = b.getInt();
                for (int i = 0; i < acls; i++) {
                    b.getInt();
                    string(b);
                    string(b);
                }
                b.getInt(); // flags
                if (op == 21) {
                    b.getLong();
                }
            }
            case 2, 13 -> b.getInt(); // version
            case 5 -> {
                skipBuffer(b);
                b.getInt();
            }
            case 4, 8, 12 -> b.get(); // watch
            default -> throw new IllegalStateException("op " + op);
        }
    }

    private static void skipBuffer(ByteBuffer b) {
        int n = b.getInt();
        if (n > 0) {
            b.position(b.position() + n);
        }
    }

    private static String string(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0) {
            return "";
        }
        String s = new String(b.array(), b.arrayOffset() + b.position(), n, StandardCharsets.UTF_8);
        b.position(b.position() + n);
        return s;
    }

    private void count(String kind, String path) {
        String shape = path.replaceFirst("^/ingest-bench-\\d+", "")
                .replaceAll("jid\\d+", "JID")
                .replaceAll("bid\\d+", "BID")
                .replaceAll("ark:/[^/]+/[^/]+", "ARK")
                .replaceAll("ark%3A%2F[^/]+", "ARK")
                .replaceAll("(?<=[-_/])[0-9a-f]{6,}", "N")
                .replaceAll("\\d{4,}", "N");
        counts.computeIfAbsent(kind + " " + shape, k -> new LongAdder()).increment();
    }

    private static void copy(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            closeBoth(from, to);
        }
    }

    private static void closeBoth(Socket a, Socket b) {
        try {
            a.close();
            b.close();
        } catch (IOException ignored) {
            // the other side closes it as well
        }
    }

    @Override
    public void close() throws IOException {
        listen.close();
    }
}
