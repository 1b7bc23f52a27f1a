package org.cdlib.mrt.ingestqueue.figures;

/**
 * The priority rule in a depositor's words: a batch's priority, why it has it (its size class, or
 * its collection's profile), which batches run before it, and whether jobs of higher priority are
 * ahead of it now. The rule itself is {@code BatchPendingStep.priority}: the profile's Priority
 * if set, else by size (≤ 10 jobs 03, ≤ 100 05, ≤ 1,000 07, more 09); a lower number runs first.
 */
final class PriorityNote {
    private PriorityNote() {
    }

    /** The size class's priority of a batch of {@code jobs} jobs, as Batch Pending gives it. */
    static int bySize(int jobs) {
        if (jobs <= 10) {
            return 3;
        }
        if (jobs <= 100) {
            return 5;
        }
        return jobs <= 1000 ? 7 : 9;
    }

    private static String sizeClass(int priority) {
        return switch (priority) {
            case 3 -> "up to 10 objects";
            case 5 -> "up to 100 objects";
            case 7 -> "up to 1,000 objects";
            default -> "more than 1,000 objects";
        };
    }

    /** Which batches run before one of this size class, said plainly. */
    private static String before(int priority) {
        return switch (priority) {
            case 3 -> "only batches whose collection's profile sets a higher priority run before it";
            case 5 -> "batches of up to 10 objects run before batches of up to 100: a smaller batch submitted "
                    + "later may finish first";
            case 7 -> "batches of up to 100 objects run before batches of up to 1,000: a smaller batch submitted "
                    + "later may finish first";
            default -> "batches of up to 1,000 objects run before larger ones: a smaller batch submitted later "
                    + "may finish first";
        };
    }

    /**
     * {@code priority}: its jobs'; {@code jobs}: its size; {@code profile}: its collection's profile
     * (may be null); {@code higherAhead}: open jobs of higher priority in the queue now.
     */
    static String of(int priority, int jobs, String profile, int higherAhead) {
        String pp = (priority < 10 ? "0" : "") + priority;
        String why;
        if (priority == bySize(jobs)) {
            why = "Priority " + pp + ", by its size (" + sizeClass(priority) + "): " + before(priority) + ".";
        } else {
            why = "Priority " + pp + ", set by the profile of collection " + (profile == null ? "?" : profile)
                    + " (not by its size): batches of a lower number run first, whatever their size.";
        }
        String now = higherAhead > 0
                ? " Now " + higherAhead + (higherAhead == 1 ? " job" : " jobs") + " of higher priority "
                        + (higherAhead == 1 ? "is" : "are") + " in the queue and go" + (higherAhead == 1 ? "es" : "")
                        + " first."
                : " Now no job of higher priority is in the queue.";
        return why + now + " Batches of the same priority run oldest first.";
    }
}
