package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.List;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;

/** A move the state machine does not allow; nothing was written. */
public class IllegalTransitionException extends QueueException {

    private final List<? extends Transition<?>> allowed;

    public IllegalTransitionException(String what, Object from, Object to, List<? extends Transition<?>> allowed) {
        super(what + " cannot go from " + from + " to " + to + "; allowed from " + from + ": "
                + (allowed.isEmpty() ? "nothing" : allowed.stream().map(t -> t.to() + " (" + t.name() + ")")
                        .distinct().collect(Collectors.joining(", "))));
        this.allowed = allowed;
    }

    public IllegalTransitionException(String message, List<? extends Transition<?>> allowed) {
        super(message);
        this.allowed = allowed;
    }

    public List<? extends Transition<?>> allowed() {
        return allowed;
    }
}
