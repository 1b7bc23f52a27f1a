package org.cdlib.mrt.ingestqueue.queue.model;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * Why a worker stopped a job in held (issue 45): the hold on its batch ({@code /locks/batches/BID}) or on its
 * collection ({@code /locks/collections/<profile>}), written into the job's status as {@code held_by}, a field of
 * ours that mrt-zk copies along. {@code status_version} is the status's version that move wrote: any later write
 * (the Admin Tool's release and hold again, which keep the field) moves the version, so a job is the hold's to
 * release only while the two agree ({@link #stoppedAt}). A job an operator held by hand has none.
 *
 * @param hold {@link #BATCH} or {@link #COLLECTION}
 * @param of the batch id or the collection's profile
 * @param statusVersion the status's version the hold's move wrote; null in a move not yet written
 */
public record HeldBy(String hold, String of, Integer statusVersion) {
    public static final String BATCH = "batch";
    public static final String COLLECTION = "collection";

    public static HeldBy batch(String bid) {
        return new HeldBy(BATCH, bid, null);
    }

    public static HeldBy collection(String profile) {
        return new HeldBy(COLLECTION, profile, null);
    }

    /** As written by a move that leaves the status at {@code version}. */
    public HeldBy at(int version) {
        return new HeldBy(hold, of, version);
    }

    /** The hold's node: the move into held checks it exists, so a hold lifted meanwhile stops nothing. */
    @JsonIgnore
    public String path() {
        return BATCH.equals(hold) ? QueuePaths.batchHold(of) : QueuePaths.collectionHold(of);
    }

    /** Whether the job whose status is at {@code version} is still as this hold's move left it. */
    public boolean stoppedAt(int version) {
        return statusVersion != null && statusVersion == version;
    }

    @Override
    public String toString() {
        return "the hold on " + hold + " " + of;
    }
}
