package org.cdlib.mrt.ingestqueue.queue;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Instant;

/** The data of an ephemeral lock node: who holds it, so an operator can tell. */
public record LockOwner(String host, long pid, String worker, String since) {

    public static LockOwner of(String worker) {
        return new LockOwner(hostName(), ProcessHandle.current().pid(), worker, Instant.now().toString());
    }

    static String hostName() {
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
