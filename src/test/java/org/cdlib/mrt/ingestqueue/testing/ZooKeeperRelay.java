package org.cdlib.mrt.ingestqueue.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of a ZooKeeper server that can hold what clients send, or what the server
 * answers, and then cut every connection, dropping what it held: requests that never reached the
 * server, or answers lost after the server applied them. Clients reconnect through it.
 */
public final class ZooKeeperRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final int serverPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream heldRequests = new ByteArrayOutputStream();
    private boolean holdingRequests;
    private boolean holdingAnswers;
    private long heldAnswers;

    public ZooKeeperRelay(int serverPort) throws IOException {
        this.serverPort = serverPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "relay-accept");
        accept.setDaemon(true);
        accept.start();
    }

    public String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on, what clients send is kept back. */
    public synchronized void holdRequests() {
        holdingRequests = true;
    }

    /** From now on, what the server answers is kept back (it has applied what it answers). */
    public synchronized void holdAnswers() {
        holdingAnswers = true;
    }

    /** Bytes of requests kept back. */
    public synchronized int heldRequests() {
        return heldRequests.size();
    }

    /** Bytes of answers kept back since the last cut. */
    public synchronized long heldAnswers() {
        return heldAnswers;
    }

    /** Drops what was held and closes every connection; later ones pass through. */
    public void cut() {
        synchronized (this) {
            holdingRequests = false;
            holdingAnswers = false;
            heldRequests.reset();
            heldAnswers = 0;
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closed already
            }
        }
        sockets.clear();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket in = listener.accept();
                Socket out = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                sockets.add(in);
                sockets.add(out);
                pump(in, out, true);
                pump(out, in, false);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean requests) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (InputStream is = from.getInputStream(); OutputStream os = to.getOutputStream()) {
                for (int n; (n = is.read(buf)) > 0; ) {
                    synchronized (this) {
                        if (requests && holdingRequests) {
                            heldRequests.write(buf, 0, n);
                            continue;
                        }
                        if (!requests && holdingAnswers) {
                            heldAnswers += n;
                            continue; // dropped at the cut
                        }
                    }
                    os.write(buf, 0, n);
                    os.flush();
                }
            } catch (IOException e) {
                // cut or closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException e) {
                    // closed already
                }
            }
        }, "relay-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        cut();
        listener.close();
    }
}
