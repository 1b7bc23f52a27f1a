package org.cdlib.mrt.ingestqueue.runtime;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.cdlib.mrt.ingestqueue.queue.model.QueuePaths;

/**
 * Which instance (and which of its lives) a ZooKeeper session was, learned from the hosts'
 * registrations ({@code /hosts/<host>-<pid>}, ephemeral, made by the session that takes the
 * host's locks) while they live, and kept after: a storage add is named by the lease its manifest
 * was signed under even when its sender was killed before storage made the version.
 */
final class ChaosSessions implements AutoCloseable {
    private final Map<Long, String> names = new ConcurrentHashMap<>();
    private final ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-sessions");
        t.setDaemon(true);
        return t;
    });

    ChaosSessions(CuratorFramework client, ChaosInstances instances) {
        poll.scheduleWithFixedDelay(() -> {
            try {
                for (String host : client.getChildren().forPath(QueuePaths.HOSTS)) {
                    Stat st = client.checkExists().forPath(QueuePaths.HOSTS + "/" + host);
                    if (st != null && st.getEphemeralOwner() != 0 && !names.containsKey(st.getEphemeralOwner())) {
                        String life = instances.lifeOf(Long.parseLong(host.substring(host.lastIndexOf('-') + 1)));
                        names.put(st.getEphemeralOwner(), life == null ? host : life);
                    }
                }
            } catch (Exception e) {
                // ZooKeeper away (a fault): the next round
            }
        }, 0, 200, TimeUnit.MILLISECONDS);
    }

    /** "a#2 (lease 1000…)" for the lease named in a storage manifest's first URL; "" when there is none. */
    String ofManifest(String manifest) {
        int i = manifest.indexOf("lease=");
        if (i < 0) {
            return "";
        }
        int end = i + 6;
        while (end < manifest.length() && Character.digit(manifest.charAt(end), 16) >= 0) {
            end++;
        }
        String hex = manifest.substring(i + 6, end);
        String name = hex.isEmpty() ? null : names.get(Long.parseUnsignedLong(hex, 16));
        return " under lease " + hex + " of " + (name == null ? "an unknown session" : name);
    }

    @Override
    public void close() {
        poll.shutdownNow();
    }
}
