package org.cdlib.mrt.ingestqueue.queue.admin;

import java.util.List;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.queue.model.IllegalTransitionException;
import org.cdlib.mrt.ingestqueue.queue.model.Transition;

/** The refusal of an action on a job or batch not in the state it needs, naming what is allowed from where it is. */
final class Refusals {
    private Refusals() {
    }

    static IllegalTransitionException notIn(String what, Object state, Object expected,
            List<? extends Transition<?>> allowed) {
        String names = allowed.isEmpty()
                ? "nothing"
                : allowed.stream()
                        .map(t -> t.to() + " (" + t.name() + ")")
                        .distinct()
                        .collect(Collectors.joining(", "));
        return new IllegalTransitionException(what + " is " + state + ", not " + expected + "; allowed from " + state
                + ": " + names, allowed);
    }
}
