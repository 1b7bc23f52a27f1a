package org.cdlib.mrt.ingestqueue.queue;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /jobs/JID/effects}: what the job has done outside the queue — minting, the EZID
 * update, storage, inventory, the callback — each recorded as {@code started} just before the
 * call and {@code done} (with its result) right after, under the job's lock. A step consults it
 * before calling again: a done effect is never repeated; a started one whose answer was lost is
 * resolved by asking the service (storage's current version) before anything is sent again.
 */
public record JobEffects(Map<String, Effect> effects) {
    public static final String MINT = "mint";
    public static final String EZID_UPDATE = "ezid_update";
    public static final String STORAGE = "storage";
    public static final String INVENTORY = "inventory";
    public static final String CALLBACK = "callback";

    /**
     * @param state  {@code started} or {@code done}
     * @param detail what the call was about or answered (an ARK, a version state, a callback key)
     */
    public record Effect(String state, String at, String detail) {
        public boolean done() {
            return "done".equals(state);
        }
    }

    public JobEffects {
        effects = effects == null ? Map.of() : Map.copyOf(effects);
    }

    public static JobEffects none() {
        return new JobEffects(Map.of());
    }

    public Effect get(String name) {
        return effects.get(name);
    }

    public boolean done(String name) {
        Effect e = effects.get(name);
        return e != null && e.done();
    }

    /** Started and never recorded as done: the call may or may not have reached the service. */
    public boolean unresolved(String name) {
        Effect e = effects.get(name);
        return e != null && !e.done();
    }

    JobEffects with(String name, String state, String detail) {
        Map<String, Effect> m = new LinkedHashMap<>(effects);
        m.put(name, new Effect(state, Instant.now().toString(), detail));
        return new JobEffects(m);
    }
}
