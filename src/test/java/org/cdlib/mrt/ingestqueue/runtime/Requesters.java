package org.cdlib.mrt.ingestqueue.runtime;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which process sent a request to a local server: the client end of the connection (local port
 * = the request's remote port, remote port = the server's) is found in {@code /proc/net/tcp} and
 * {@code tcp6} among the established connections (a closed one in TIME_WAIT may have the same
 * ports and no inode), and its socket inode among the candidates' open files; an inode names one
 * socket while it lives, so a keep-alive connection is looked up once. Linux only; -1 when it
 * cannot be told (the connection is gone, or the sender is none of the candidates).
 */
final class Requesters {
    private static final Map<String, Long> OWNERS = new ConcurrentHashMap<>();

    private Requesters() {
    }

    static long pidOf(int clientPort, int serverPort, Collection<Long> candidates) {
        for (int attempt = 0; attempt < 3; attempt++) { // the kernel's table may skip a line while it changes
            String inode = inode(clientPort, serverPort);
            Long known = inode == null ? null : OWNERS.get(inode);
            if (known != null && candidates.contains(known)) {
                return known;
            }
            long pid = inode == null ? -1 : owner(inode, candidates);
            if (pid >= 0) {
                OWNERS.put(inode, pid);
                return pid;
            }
        }
        return -1;
    }

    private static long owner(String inode, Collection<Long> candidates) {
        String socket = "socket:[" + inode + "]";
        for (long pid : candidates) {
            try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid), "fd"))) {
                for (Path fd : fds) {
                    try {
                        if (socket.equals(Files.readSymbolicLink(fd).toString())) {
                            return pid;
                        }
                    } catch (IOException closed) {
                        // closed while we looked
                    }
                }
            } catch (IOException gone) {
                // that process has exited
            }
        }
        return -1;
    }

    private static String inode(int clientPort, int serverPort) {
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] c = line.strip().split("\\s+");
                    if (c.length > 9 && c[1].contains(":") && "01".equals(c[3]) && !"0".equals(c[9])
                            && port(c[1]) == clientPort && port(c[2]) == serverPort) {
                        return c[9];
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // no such table here
            }
        }
        return null;
    }

    private static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1), 16);
    }
}
