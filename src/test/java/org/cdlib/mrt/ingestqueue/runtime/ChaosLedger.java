package org.cdlib.mrt.ingestqueue.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;
import org.cdlib.mrt.ingestqueue.runtime.ChaosObjects.ChaosObject;

/**
 * The end of a chaos run, checked call by call: every count is per key (object, ARK, local id,
 * callback key), so a second storage add, inventory add, EZID update or callback shows up as a
 * 2 wherever it happened, kept ARK or not, and fails the run — a callback sent again under its
 * key only when the process that sent it was killed or paused before it could record the answer
 * (counted in the summary as allowed repeats); a second key for one job always fails. An extra mint is allowed
 * only where the job's own effects node records a mint whose answer was lost — never because a log line says so.
 * fsck must be clean, the disk reservation counters included. Each failure names the object, its job and its ARK.
 */
final class ChaosLedger {
    /**
     * fsck kinds that only list something for the operator rather than an inconsistency. Empty:
     * every violation fails the run (unused ARKs are fsck's notices, not violations).
     * {@code space-reservation} may never be listed here.
     */
    static final Set<String> FSCK_LISTINGS = Set.of();

    private final ChaosServices services;
    private final Map<String, List<String>> failures = new LinkedHashMap<>();

    ChaosLedger(ChaosServices services) {
        this.services = services;
    }

    void fail(String check, String what) {
        failures.computeIfAbsent(check, k -> new ArrayList<>()).add(what);
    }

    boolean clean() {
        return failures.isEmpty();
    }

    /** @param effects each job's {@code /jobs/JID/effects} as JSON (missing: none) */
    void check(List<Job> jobs, Map<String, JsonNode> effects) {
        Set<String> kept = new HashSet<>();
        for (Job j : jobs) {
            int i = objectOf(j);
            ChaosObject o = i < 0 ? null : services.objects.get(i);
            String ark = j.identifiers().primary();
            String who = "object " + i + " (job " + j.id() + ", ARK " + ark + ")";
            if (j.state() != JobState.COMPLETED || j.status().retryCount() != 0) {
                fail(
                        "job-state",
                        who + ": " + j.state() + " after " + j.status().retryCount() + " retries: "
                                + j.status().errorMessage());
            }
            if (o == null || ark == null || !kept.add(ark)) {
                fail(
                        "ark",
                        who + ": "
                                + (o == null
                                        ? "not one of the run's objects"
                                        : ark == null ? "no ARK" : "ARK kept by two jobs"));
                continue;
            }
            if (j.spaceNeeded() != o.content().length) {
                fail(
                        "estimate",
                        who + ": space_needed " + j.spaceNeeded() + ", the object has " + o.content().length
                                + " bytes");
            }
            List<String> minted = services.mintedFor.getOrDefault(i, List.of());
            if (!minted.contains(ark)) {
                fail("mint", who + ": the kept ARK was not minted for this object (minted for it: " + minted + ")");
            }
            int lost = lostMints(effects.get(j.id()), ark);
            if (minted.size() > 1 + lost) {
                fail("mint", who + ": " + minted.size() + " mints " + minted.stream().map(a -> a + " by "
                        + services.mintedBy.get(a)).toList() + ", " + lost + " lost-answer mint(s) recorded in the"
                        + " job's effects " + effects.get(j.id()));
            }
            exactlyOnce("storage-add", who, services.storageAdds.get(ark));
            List<String> addsOfObject = services.storageAddsOf.getOrDefault(i, List.of());
            if (addsOfObject.size() != 1) {
                fail(
                        "storage-add",
                        who + ": " + addsOfObject.size() + " storage adds for the object, to " + addsOfObject);
            }
            // one add per object: an add begun and unanswered is resolved by asking inventory, never sent again blindly
            // (Merritt's checkVersion would make a repeat no second record, but the call itself must not repeat)
            exactlyOnce("inventory-add", who, services.inventoryAdds.get(ark));
            int records = services.inventoryRecords.getOrDefault(ark, 0);
            if (records != 1) {
                fail(
                        "inventory-add",
                        who + ": " + records + " inventory records from calls " + services.inventoryAdds.get(ark));
            }
            // every kept ARK described, once (but for a send already on its way when its sender was paused)
            ezidSends(who, ark);
            List<String> keys =
                    services.callbackKeysOf.containsKey(j.id()) ? services.callbackKeysOf.get(j.id()) : List.of();
            if (keys.size() != 1) {
                fail("callback", who + ": callback keys " + keys);
            }
            // one job has one key (a second key is always a failure), and the key is sent once, but for a repeat
            // whose first sender was killed or paused before it could record the answer: a receiver cannot be
            // asked, so the callback is at least once under one key (the receiver drops the repeat by it)
            keys.forEach(k -> callbackSends(who + " key " + k, k));

            for (String id : o.localIds()) {
                List<String> named = services.bindCalls.getOrDefault(id, List.of());
                // a bind naming another ARK minted for this object (a lost-answer mint, accounted above) was refused:
                // inventory keeps the first binding, which must be the kept ARK
                if (!ark.equals(services.bindings.get(id))
                        || named.stream().anyMatch(a -> !a.equals(ark) && !minted.contains(a))) {
                    fail(
                            "local-id",
                            who + ": local id '" + id + "' bound to " + services.bindings.get(id)
                                    + "; bind calls named " + named);
                }
            }
        }
        if (jobs.size() != services.submitted) {
            fail("job-state", jobs.size() + " jobs for " + services.submitted + " objects");
        }
        unkept("storage-add", services.storageAdds, kept);
        for (String held : services.heldAdds) {
            // a second version fails exactlyOnce above; this says a host refused the late add's files for their lease
            String ark = held.substring(0, held.indexOf(' '));
            if (held.contains(" landed as another host's add") && services.storageAddsRefused.stream()
                    .noneMatch(r -> r.startsWith(ark + " from ") && r.contains(": HTTP 409 from "))) {
                fail(
                        "storage-add",
                        "an add held on the wire past its sender's session (" + held + ") was not refused at the"
                                + " files' fetch by their lease (409); refused: " + services.storageAddsRefused);
            }
        }
        unkept("inventory-add", services.inventoryAdds, kept);
        unkept("ezid-update", services.ezidUpdates, kept);
        services.unattributedMints.forEach(m -> fail("mint", "a mint no object asked for: " + m));
        downloadingMoves = new ArrayList<>();
        for (Job j : jobs) {
            List<String> moves = j.status().history().stream()
                    .filter(e -> "downloading".equals(e.from()) || "downloading".equals(e.to()))
                    .map(e -> e.from() + "->" + e.to() + " by " + e.by() + " at " + e.at()).toList();
            if (moves.size() != 2) {
                downloadingMoves.add(j.id() + " (space_needed " + j.spaceNeeded() + "): " + moves);
            }
        }
    }

    /**
     * Jobs whose history (its last transitions) does not show one
     * move into downloading and one out: where a drift starts.
     */
    private List<String> downloadingMoves = List.of();

    void checkFsck(ConsistencyCheck.Report fsck) {
        if (FSCK_LISTINGS.contains("space-reservation")) {
            throw new IllegalStateException("space-reservation is an inconsistency, never a listing");
        }
        fsck.violations().stream()
                .filter(v -> !FSCK_LISTINGS.contains(v.kind()))
                .forEach(v -> fail(
                        "fsck",
                        v.kind() + " at " + v.path() + ": " + v.detail()
                                + (v.kind().equals("space-reservation")
                                        ? "; jobs whose history does not show one move into and one out of "
                                                + "downloading: " + downloadingMoves
                                        : "")));
    }

    /** Repeated callbacks the rule allows: "key: a#2 sent at …, killed at …; sent again by b@…". */
    final List<String> allowedRepeats = new ArrayList<>();

    /**
     * One callback key's sends: each after the first must follow a kill or pause of the previous
     * send's process, before the second send (the previous sender could not record the answer);
     * anything else (a live host's second send, a host that lost the job sending on waking) fails.
     * A send whose process the server could not name was taken up after that process died, and is
     * excused by a kill shortly before it was seen (which process, the harness cannot tell).
     */
    void callbackSends(String who, String key) {
        List<ChaosServices.Send> sends = new ArrayList<>(services.callbackSends.getOrDefault(key, List.of()));
        if (sends.isEmpty()) {
            fail("callback", who + ": never sent");
            return;
        }
        sends.sort(Comparator.comparingLong(ChaosServices.Send::nanos));
        List<ChaosFaults.Stopped> stopped = services.faults == null ? List.of() : services.faults.stopped;
        for (int n = 1; n < sends.size(); n++) {
            ChaosServices.Send first = sends.get(n - 1);
            ChaosServices.Send again = sends.get(n);
            // the recording server may take a request up late (its threads starved): a send is seen up to the
            // hosts' call timeout after it left. A kill of its process at any time before the second send excuses
            // it (a dead process sends nothing, so it sent before); a pause only from one call timeout before it
            // was seen sends of a process the server could not name (pid -1) were taken up after it died: no live
            // instance owned the socket; they are excused by a kill within one call timeout before they were seen
            long slack = ChaosTest.CALL_TIMEOUT.toNanos();
            ChaosFaults.Stopped excuse = stopped.stream()
                    .filter(s -> first.pid() >= 0
                            ? s.pid() == first.pid()
                                    && s.nanos() <= again.nanos()
                                    && (s.how().equals("killed") || s.nanos() >= first.nanos() - slack)
                            : s.how().equals("killed")
                                    && s.nanos() <= first.nanos()
                                    && s.nanos() >= first.nanos() - slack)
                    .min(Comparator.comparingLong(s -> Math.abs(s.nanos() - first.nanos())))
                    .orElse(null);
            if (excuse == null) {
                fail(
                        "callback",
                        who + ": sent again by " + again.who() + " after " + first.who() + " (pid " + first.pid()
                                + "), which was neither killed nor paused in between (sends "
                                + sends.stream().map(ChaosServices.Send::who).toList()
                                + "; kills and pauses of that pid: "
                                + stopped.stream()
                                        .filter(s -> s.pid() == first.pid())
                                        .map(s ->
                                                s.how() + String.format(" %+.1f s", (s.nanos() - first.nanos()) / 1e9))
                                        .toList()
                                + ")");
            } else {
                allowedRepeats.add(key + ": " + first.who() + " (" + excuse.life() + ") " + excuse.how()
                        + String.format(" %.1f s", (excuse.nanos() - first.nanos()) / 1e9)
                        + " after sending it; sent again by " + again.who());
            }
        }
    }

    /**
     * One ARK's EZID updates: one, unless a later one left a process before that process was
     * paused past its session and arrived after the next holder had asked EZID and sent its own: a
     * send past its fence cannot be called back, and the update sets the same metadata. Anything
     * else fails (a live host's second send, a paused host sending after waking from its fence).
     */
    void ezidSends(String who, String ark) {
        List<ChaosServices.Send> sends = new ArrayList<>(services.ezidSends.getOrDefault(ark, List.of()));
        if (sends.size() != 1) {
            sends.sort(Comparator.comparingLong(ChaosServices.Send::nanos));
        }
        if (sends.isEmpty()) {
            fail("ezid-update", who + ": 0 calls");
            return;
        }
        List<ChaosFaults.Stopped> stopped = services.faults == null ? List.of() : services.faults.stopped;
        ChaosServices.Send first = sends.get(0);
        for (ChaosServices.Send again : sends.subList(1, sends.size())) {
            ChaosFaults.Stopped excuse = stopped.stream()
                    .filter(s -> again.pid() >= 0
                            && s.pid() == again.pid()
                            && s.how().equals("paused")
                            && s.nanos() < first.nanos()
                            && s.nanos() < again.nanos())
                    .findFirst()
                    .orElse(null);
            if (excuse == null) {
                fail(
                        "ezid-update",
                        who + ": " + sends.size() + " calls "
                                + sends.stream().map(ChaosServices.Send::who).toList());
                return;
            }
            allowedRepeats.add("EZID " + ark + ": " + again.who() + " (" + excuse.life() + ") paused "
                    + String.format("%.1f s", (first.nanos() - excuse.nanos()) / 1e9) + " before " + first.who()
                    + "'s update, its own already sent");
        }
    }

    /** @param calls who sent each call and when */
    private void exactlyOnce(String check, String who, List<String> calls) {
        int n = calls == null ? 0 : calls.size();
        if (n != 1) {
            fail(check, who + ": " + n + " calls" + (n == 0 ? "" : " " + calls));
        }
    }

    /** Calls for an ARK no job keeps: an object written under an ARK nobody will find. */
    private void unkept(String check, Map<String, List<String>> calls, Set<String> kept) {
        calls.forEach((ark, n) -> {
            if (!kept.contains(ark)) {
                fail(check, n.size() + " call(s) " + n + " for ARK " + ark + ", which no job keeps (minted for object "
                        + services.objectOfArk(ark) + ")");
            }
        });
    }

    /**
     * The mints a job may have made beyond the ARK it kept, as its effects record them: the
     * lost-answer mints ({@code lost_mint}, its detail a count) and a mint whose ARK another job's
     * local-id binding displaced (the mint done with an ARK that is not the job's).
     */
    static int lostMints(JsonNode effects, String kept) {
        if (effects == null) {
            return 0;
        }
        JsonNode map = effects.has("effects") ? effects.get("effects") : effects;
        int n = map.path(JobEffects.LOST_MINT).path("detail").asInt(0);
        JsonNode mint = map.path(JobEffects.MINT);
        if ("done".equals(mint.path("state").asText()) && !mint.path("detail").asText(kept).equals(kept)) {
            n++;
        }
        return n;
    }

    static int objectOf(Job j) {
        String name = j.configuration().fileName();
        return name != null && name.matches("f\\d+\\.bin")
                ? Integer.parseInt(name.substring(1, name.indexOf('.')))
                : -1;
    }

    /** One paragraph per failed check: how many, and the first 25 by name. */
    String report() {
        StringBuilder b = new StringBuilder();
        failures.forEach((check, list) -> {
            b.append("\n").append(check).append(": ").append(list.size()).append(" failure(s)");
            list.stream().limit(25).forEach(f -> b.append("\n  - ").append(f));
            if (list.size() > 25) {
                b.append("\n  … and ").append(list.size() - 25).append(" more");
            }
        });
        return b.toString();
    }

    String counts() {
        int extra = services.mintedFor.values().stream().mapToInt(l -> l.size() - 1).sum();
        return String.format(
                "%d objects, %d bytes; %d mints (%d extra); %d storage adds (+%d dropped with their sender, +%d"
                    + " refused at the files' fetch) to %d ARKs; %d inventory adds to %d ARKs; %d local-id lookups, %d"
                    + " binds of %d local ids; %d callbacks with %d keys (%d repeats allowed: the first sender killed"
                    + " or paused before recording the answer); %d EZID updates of %d ARKs; %d payload downloads",
                services.submitted,
                ChaosObjects.bytes(services.submittedObjects()),
                services.mints.get(),
                extra,
                sum(services.storageAdds),
                services.storageAddsDropped.get(),
                services.storageAddsRefused.size(),
                services.storageAdds.size(),
                sum(services.inventoryAdds),
                services.inventoryAdds.size(),
                services.lookups.get(),
                sum(services.bindCalls),
                services.bindCalls.size(),
                sum(services.callbacks),
                services.callbacks.size(),
                allowedRepeats.size(),
                sum(services.ezidUpdates),
                services.ezidUpdates.size(),
                services.downloads.values().stream()
                        .mapToInt(AtomicInteger::get)
                        .sum());
    }

    private static int sum(Map<?, ? extends Collection<?>> calls) {
        return calls.values().stream().mapToInt(Collection::size).sum();
    }
}
