package org.cdlib.mrt.ingestqueue.queue.model;

/**
 * One allowed move of a job or a batch. {@code by} says who may make it: the consumer that
 * holds the lock ({@link By#WORKER}), an operator ({@link By#ADMIN}) or the queue itself
 * ({@link By#AUTOMATIC}).
 */
public record Transition<S extends Enum<S>>(S from, S to, By by, String name) {

    public enum By { WORKER, ADMIN, AUTOMATIC }

    @Override
    public String toString() {
        return from + " -> " + to + " (" + name + ")";
    }
}
