package org.cdlib.mrt.ingestqueue.queue.model;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The data of an ephemeral lock node: who holds it, so an operator can tell, and a claim token no
 * other claim has, so a lock re-created by another worker of the same process is not taken for
 * this one ({@link Lease}).
 */
public record LockOwner(String host, long pid, String worker, String since, String claim) {
    public static LockOwner of(String worker) {
        // unique, not secret: it tells claims apart, it guards nothing
        return new LockOwner(hostName(), ProcessHandle.current().pid(), worker, Instant.now().toString(),
                Long.toHexString(ThreadLocalRandom.current().nextLong()));
    }

    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return ManagementFactory.getRuntimeMXBean().getName();
        }
    }

    @Override
    public String toString() {
        return worker + "@" + host + " (pid " + pid + ", since " + since + ")";
    }
}
