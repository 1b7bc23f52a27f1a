package org.cdlib.mrt.ingestqueue.queue.model;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The data of an ephemeral lock node: who holds it, so an operator can tell, and a claim token no
 * other claim has, so a lock re-created by another worker of the same process is not taken for
 * this one ({@link Lease}). {@code host} is the host's id (the hosts page's name, {@code ingest.host.id}
 * or host-pid), not the machine's name: one name per host wherever an operator reads it.
 */
public record LockOwner(String host, long pid, String worker, String since, String claim) {
    public static LockOwner of(String host, String worker) {
        // unique, not secret: it tells claims apart, it guards nothing
        return new LockOwner(host, ProcessHandle.current().pid(), worker, Instant.now().toString(),
                Long.toHexString(ThreadLocalRandom.current().nextLong()));
    }

    /** {@code worker@host}, as the job timeline and the dashboard name a holder. */
    public String holder() {
        return worker + "@" + host;
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
        return holder() + " (pid " + pid + ", since " + since + ")";
    }
}
