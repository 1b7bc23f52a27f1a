package org.cdlib.mrt.ingestqueue.runtime;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * The faults of a chaos run, each fired by progress at a risky moment rather than at a time:
 * the test arms one fault, and the recording server fires it when a request reaches that
 * fault's moment (a mint answered, a storage add arrived, a payload download in flight …),
 * against the very process that sent the request. A kill fired after an answer first marks the
 * requester doomed, so nothing else it sends reaches a service before it is dead: a kill after
 * a mint's answer lands before that host's inventory bind. The plan — which faults, at which
 * moment, after how many matching requests, in which order — is drawn from the run's seed.
 */
final class ChaosFaults {
    /** Where a request is when a fault may hit; {@code answered}: after its answer was sent. */
    enum Moment {
        MINT_ANSWERED(true), BIND_ANSWERED(true), STORAGE_ADD_ARRIVED(false), STORAGE_ADD_APPLIED(false),
        STORAGE_ADD_ANSWERED(true), DOWNLOAD_ARRIVED(false), DOWNLOAD_ANSWERED(true), INVENTORY_ADD_ARRIVED(false),
        INVENTORY_ADD_APPLIED(false);

        final boolean answered;

        Moment(boolean answered) {
            this.answered = answered;
        }
    }

    /** {@code STOP_HELD}: the sender paused, and the request it sent held until another host did its work. */
    enum Kind { KILL, KILL_ALL, STOP, STOP_HELD, LEADER }

    /** @param skip how many requests reaching the moment pass before the one it hits */
    record Fault(String name, Kind kind, Moment moment, int skip) {
        @Override
        public String toString() {
            return name + " [" + kind + " at " + moment + ", after " + skip + " more]";
        }
    }

    /** A fault that went off: whom it hit and what that process was doing; {@code error} when it could not be done. */
    record Fired(Fault fault, String instance, long pid, String what, long nanos, InstanceSpec leader, String error) {
    }

    /** What the server does after (or instead of) answering; true when the requester is dead: drop the request. */
    interface Shot {
        boolean fire();
    }

    static final Shot NONE = () -> false;

    /**
     * The shot of a {@link Kind#STOP_HELD} fault: the request it hit is served only once its work was done elsewhere.
     */
    record Held(Shot shot) implements Shot {
        @Override
        public boolean fire() {
            return shot.fire();
        }
    }

    /** A process a fault killed or paused, and when ({@link System#nanoTime}): what may excuse a repeated callback. */
    record Stopped(long pid, String life, String how, long nanos) {
    }

    /** Every kill and pause of the run, in the order they were done. */
    final List<Stopped> stopped = new CopyOnWriteArrayList<>();
    private final ChaosInstances instances;
    private final TestingCluster cluster;
    private final ChaosTimeline timeline;
    private final Map<Long, CountDownLatch> doomed = new ConcurrentHashMap<>();
    private Fault armed; // guarded by this
    private int toSkip; // guarded by this
    private volatile Fired fired;
    volatile int serverPort;
    volatile IntFunction<String> label = i -> "object " + i;

    ChaosFaults(ChaosInstances instances, TestingCluster cluster, ChaosTimeline timeline) {
        this.instances = instances;
        this.cluster = cluster;
        this.timeline = timeline;
    }

    static List<Fault> plan(SplittableRandom r) {
        List<Fault> plan = new ArrayList<>(List.of(
                new Fault("kill -9 between a mint and its bind", Kind.KILL, Moment.MINT_ANSWERED, r.nextInt(4)),
                new Fault(
                        "kill -9 between a local id's bind and the ARK's record",
                        Kind.KILL,
                        Moment.BIND_ANSWERED,
                        r.nextInt(4)),
                new Fault(
                        "kill -9 between a storage add's send and its record",
                        Kind.KILL,
                        pick(r, Moment.STORAGE_ADD_ARRIVED, Moment.STORAGE_ADD_APPLIED, Moment.STORAGE_ADD_ANSWERED),
                        r.nextInt(4)),
                // recorded by inventory, the answer lost: the job's next holder must ask, not add again
                new Fault(
                        "kill -9 between an inventory add's record and its answer",
                        Kind.KILL,
                        Moment.INVENTORY_ADD_APPLIED,
                        r.nextInt(4)),
                new Fault(
                        "kill -9 while a job moves into or out of downloading (counter update)",
                        Kind.KILL,
                        pick(r, Moment.DOWNLOAD_ARRIVED, Moment.DOWNLOAD_ANSWERED),
                        r.nextInt(4)),
                new Fault(
                        "ZooKeeper leader down past the session timeout",
                        Kind.LEADER,
                        pick(
                                r,
                                Moment.MINT_ANSWERED,
                                Moment.STORAGE_ADD_APPLIED,
                                Moment.DOWNLOAD_ANSWERED,
                                Moment.INVENTORY_ADD_ARRIVED),
                        r.nextInt(4)),
                new Fault(
                        "SIGSTOP past the session",
                        Kind.STOP,
                        pick(
                                r,
                                Moment.MINT_ANSWERED,
                                Moment.BIND_ANSWERED,
                                Moment.STORAGE_ADD_APPLIED,
                                Moment.DOWNLOAD_ANSWERED),
                        r.nextInt(4)),
                // a host paused with its add on the wire, landing after another host took the job over and stored it
                new Fault(
                        "a storage add held in flight past its sender's session (SIGSTOP)",
                        Kind.STOP_HELD,
                        Moment.STORAGE_ADD_ARRIVED,
                        r.nextInt(4)),
                new Fault(
                        "kill -9 of all three at once",
                        Kind.KILL_ALL,
                        pick(
                                r,
                                Moment.MINT_ANSWERED,
                                Moment.STORAGE_ADD_APPLIED,
                                Moment.DOWNLOAD_ARRIVED,
                                Moment.INVENTORY_ADD_ARRIVED),
                        r.nextInt(4))));
        Collections.shuffle(plan, new Random(r.nextLong()));
        // in the pipeline's order (downloads, then mints and binds, storage, inventory): each phase is over
        // long before the batch is, so a fault armed after a later phase's would never fire
        plan.sort(Comparator.comparingInt(f -> phase(f.moment())));
        return plan;
    }

    private static int phase(Moment m) {
        String n = m.name();
        return n.startsWith("DOWNLOAD")
                ? 0
                : n.startsWith("MINT") || n.startsWith("BIND") ? 1 : n.startsWith("STORAGE") ? 2 : 3;
    }

    private static Moment pick(SplittableRandom r, Moment... moments) {
        return moments[r.nextInt(moments.length)];
    }

    synchronized void arm(Fault f) {
        fired = null;
        toSkip = f.skip();
        armed = f;
        timeline.note("armed: " + f);
    }

    synchronized void disarm() {
        armed = null;
    }

    Fired fired() {
        return fired;
    }

    /** Before a request is served: a doomed requester's request waits until it is dead and is dropped. */
    boolean gate(HttpExchange ex) throws InterruptedException {
        if (doomed.isEmpty()) {
            return false;
        }
        CountDownLatch dead = doomed.get(requester(ex));
        if (dead == null) {
            return false;
        }
        dead.await(60, TimeUnit.SECONDS);
        return true;
    }

    /**
     * The request reached {@code m}: the armed fault's shot when this is the request it waits for, else {@link #NONE}.
     */
    synchronized Shot at(Moment m, HttpExchange ex, int object) {
        Fault f = armed;
        if (f == null || f.moment() != m) {
            return NONE;
        }
        long pid = requester(ex);
        String name = pid < 0 ? null : instances.nameOf(pid);
        if (name == null || toSkip-- > 0) {
            return NONE; // a sender we cannot name is not hit: the next one is
        }
        armed = null;
        String what = m + " of " + label.apply(object) + ", sent by " + name + " (pid " + pid + ")";
        List<String> victims = switch (f.kind()) {
            case KILL, STOP, STOP_HELD -> List.of(name);
            case KILL_ALL -> ChaosInstances.NAMES;
            case LEADER -> List.of();
        };
        if (m.answered && (f.kind() == Kind.KILL || f.kind() == Kind.KILL_ALL)) {
            victims.forEach(v -> doomed.put(instances.pid(v), new CountDownLatch(1)));
        }
        Shot shot = () -> fire(f, name, pid, what, victims);
        return f.kind() == Kind.STOP_HELD ? new Held(shot) : shot;
    }

    private boolean fire(Fault f, String name, long pid, String what, List<String> victims) {
        long at = System.nanoTime();
        InstanceSpec leader = null;
        String error = null;
        try {
            switch (f.kind()) {
                case KILL, KILL_ALL -> {
                    for (String v : victims) {
                        long vpid = instances.pid(v);
                        stopped.add(new Stopped(vpid, instances.lifeOf(vpid), "killed", System.nanoTime()));
                        instances.kill(v);
                        CountDownLatch dead = doomed.remove(vpid);
                        if (dead != null) {
                            dead.countDown();
                        }
                    }
                }
                case STOP, STOP_HELD -> {
                    stopped.add(new Stopped(pid, instances.lifeOf(pid), "paused", System.nanoTime()));
                    instances.signal(name, "STOP");
                }
                case LEADER -> {
                    leader = cluster.getInstances().stream()
                            .filter(s -> "leader".equals(mode(s)))
                            .findFirst()
                            .orElse(null);
                    if (leader == null || !cluster.killServer(leader)) {
                        error = "no ZooKeeper leader found to stop";
                    }
                }
            }
        } catch (Exception | Error e) {
            error = e.toString();
        }
        timeline.note("FIRED " + f.name() + " (" + f.kind() + (victims.isEmpty() ? "" : " " + victims)
                + (leader == null ? "" : " leader on port " + leader.getPort()) + ") at " + what
                + (error == null ? "" : " — FAILED: " + error));
        fired = new Fired(f, name, pid, what, at, leader, error);
        return error == null && victims.contains(name) && (f.kind() == Kind.KILL || f.kind() == Kind.KILL_ALL);
    }

    /** "b@42.0s": which instance sent the request, and when in the run; "?" for a sender that cannot be told. */
    String sender(HttpExchange ex) {
        long pid = requester(ex);
        String name = pid < 0 ? null : instances.nameOf(pid);
        return String.format("%s@%.1fs", name == null ? "?" : name, timeline.seconds());
    }

    /** The pid of the process that sent the request; negative when it cannot be told. */
    long requester(HttpExchange ex) {
        return Requesters.pidOf(ex.getRemoteAddress().getPort(), serverPort, instances.pids());
    }

    /** A ZooKeeper server's mode by its {@code srvr} four-letter word: leader, follower, or down. */
    static String mode(InstanceSpec spec) {
        try (Socket s = new Socket("127.0.0.1", spec.getPort())) {
            s.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            int i = text.indexOf("Mode: ");
            return i < 0 ? "unknown" : text.substring(i + 6, text.indexOf('\n', i)).trim();
        } catch (IOException e) {
            return "down";
        }
    }
}
