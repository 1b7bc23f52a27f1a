package org.cdlib.mrt.ingestqueue.figures;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.model.JobState;

/**
 * Step times per profile (issue 45): the last {@link #KEPT} step times a state of each of the {@link #PROFILES}
 * profiles seen last on this host, written beside the states' own in the host's node ({@link StepTimes}), and read
 * back from every host's, so a batch is estimated by its own profile's steps where enough were measured
 * ({@link BatchEstimates}). Not thread-safe: its {@link StepTimes} guards it.
 */
final class ProfileSteps {
    /** Profiles whose step times are kept (the ones seen last), and step times a state of each. */
    static final int PROFILES = 8;
    static final int KEPT = 16;
    /** A longer profile name is no Merritt profile's: its steps count for the state only. */
    static final int NAME_MAX = 100;

    /** Per profile, the ones seen last (access order: the least recently seen first), their step times a state. */
    private final Map<String, Map<JobState, ArrayDeque<Long>>> byProfile = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<JobState, ArrayDeque<Long>>> eldest) {
            return size() > PROFILES;
        }
    };

    /** A step of {@code profile} in {@code s} took {@code millis}; an unnamed or overlong profile adds nothing. */
    void add(String profile, JobState s, long millis) {
        if (profile == null || profile.isEmpty() || profile.length() > NAME_MAX) {
            return;
        }
        ArrayDeque<Long> own = byProfile.computeIfAbsent(profile, k -> new EnumMap<>(JobState.class))
                .computeIfAbsent(s, k -> new ArrayDeque<>());
        if (own.size() == KEPT) {
            own.pollFirst();
        }
        own.addLast(Math.max(1, millis));
    }

    /** Each kept profile's step times (ms) a state, the profile seen last first (iterating changes no order). */
    Map<String, Object> figures() {
        List<Map.Entry<String, Map<JobState, ArrayDeque<Long>>>> seen = new ArrayList<>(byProfile.entrySet());
        Collections.reverse(seen);
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Map<JobState, ArrayDeque<Long>>> e : seen) {
            Map<String, Object> steps = new LinkedHashMap<>();
            e.getValue().forEach((s, ring) -> steps.put(s.wire(), new ArrayList<>(ring)));
            out.put(e.getKey(), steps);
        }
        return out;
    }

    /**
     * A host's profiles' step times added to {@code out} (each newest first): at most {@link #PROFILES}
     * profiles and the last {@link #KEPT} times a state each; a name too long, a key that is no working
     * state, a time that is no positive number add nothing.
     */
    static void read(JsonNode n, Map<String, Map<JobState, List<List<Long>>>> out) {
        Iterator<Map.Entry<String, JsonNode>> it = n.path("profiles").fields();
        for (int read = 0; read < PROFILES && it.hasNext(); read++) {
            Map.Entry<String, JsonNode> p = it.next();
            if (p.getKey().isEmpty() || p.getKey().length() > NAME_MAX) {
                continue;
            }
            p.getValue().fields().forEachRemaining(f -> {
                JobState s = StepTimes.stateOf(f.getKey());
                if (s == null || !f.getValue().isArray()) {
                    return;
                }
                List<Long> host = new ArrayList<>();
                for (JsonNode v : f.getValue()) {
                    if (v.isIntegralNumber() && v.asLong() > 0) {
                        host.add(0, v.asLong()); // newest first
                    }
                }
                if (!host.isEmpty()) {
                    out.computeIfAbsent(p.getKey(), k -> new EnumMap<>(JobState.class))
                            .computeIfAbsent(s, k -> new ArrayList<>())
                            .add(host.subList(0, Math.min(host.size(), KEPT)));
                }
            });
        }
    }

    /** Every host's profiles' step times ({@link #read}) as one list a profile and state, the hosts interleaved. */
    static Map<String, Map<JobState, List<Long>>> merged(Map<String, Map<JobState, List<List<Long>>>> byHost) {
        Map<String, Map<JobState, List<Long>>> profiles = new HashMap<>();
        byHost.forEach((p, states) -> states.forEach((s, hosts) ->
                profiles.computeIfAbsent(p, k -> new EnumMap<>(JobState.class)).put(s, StepTimes.interleaved(hosts))));
        return profiles;
    }
}
