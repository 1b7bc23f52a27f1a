package org.cdlib.mrt.ingestqueue.queue.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /jobs/JID/effects}: what the job has done outside the queue — minting, the EZID
 * update, storage, inventory, the callback — each recorded as {@code started} just before the
 * call and {@code done} (with its result) right after, under the job's lock. A step consults it
 * before calling again: a done effect is never repeated; a started one whose answer was lost is
 * resolved by asking the service (storage's current version) before anything is sent again.
 * A mint cannot be resolved so (EZID cannot be asked which ARK a lost answer carried): the next
 * mint records it as {@code lost_mint} (state {@code lost}, {@code at} when the lost mint began,
 * {@code detail} how many were lost), so the operator can look for an unused ARK at the minter.
 */
public record JobEffects(Map<String, Effect> effects) {
    public static final String MINT = "mint";
    public static final String EZID_UPDATE = "ezid_update";
    public static final String STORAGE = "storage";
    public static final String INVENTORY = "inventory";
    public static final String CALLBACK = "callback";
    public static final String LOST_MINT = "lost_mint";

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

    /** How many of this job's mints began and never had their answer recorded (each may have left an unused ARK). */
    public int lostMints() {
        Effect e = effects.get(LOST_MINT);
        if (e == null) {
            return 0;
        }
        try {
            return Math.max(1, Integer.parseInt(e.detail()));
        } catch (NumberFormatException | NullPointerException x) {
            return 1; // written by hand: at least the one it names
        }
    }

    /**
     * An ARK at the minter that the repository does not use, for the operator to remove there:
     * {@code lost-mint} (a mint whose answer was lost: one may exist) or {@code unused-ark} (this
     * job minted it, then another job bound the local id first).
     */
    public record UnusedArk(String kind, String detail) {
    }

    /** What this job may have left unused at the minter; {@code primary} is the ARK the job kept. */
    public List<UnusedArk> unusedArks(String primary) {
        List<UnusedArk> out = new ArrayList<>();
        if (lostMints() > 0) {
            out.add(new UnusedArk(
                    "lost-mint",
                    lostMints() + " mint answer(s) lost (the last of those mints began at "
                            + effects.get(LOST_MINT).at()
                            + "): an ARK may exist at the minter (EZID) unused; look for one made "
                            + "then and remove it there"));
        }
        Effect mint = effects.get(MINT);
        if (mint != null && mint.done() && primary != null && mint.detail() != null && !mint.detail().equals(primary)) {
            out.add(new UnusedArk(
                    "unused-ark",
                    mint.detail() + " was minted and not used (another job bound the local id to " + primary
                            + " first): it exists at the minter (EZID) unused; remove it there"));
        }
        return out;
    }

    /** The mint begun before as lost (the next one is recorded beside it), counted. */
    public JobEffects withLostMint() {
        Effect mint = effects.get(MINT);
        return with(LOST_MINT, "lost", Integer.toString(lostMints() + 1),
                mint == null ? Instant.now().toString() : mint.at());
    }

    public JobEffects with(String name, String state, String detail) {
        return with(name, state, detail, Instant.now().toString());
    }

    private JobEffects with(String name, String state, String detail, String at) {
        Map<String, Effect> m = new LinkedHashMap<>(effects);
        m.put(name, new Effect(state, at, detail));
        return new JobEffects(m);
    }
}
