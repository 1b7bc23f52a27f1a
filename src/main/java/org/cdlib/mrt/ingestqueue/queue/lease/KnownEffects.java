package org.cdlib.mrt.ingestqueue.queue.lease;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.cdlib.mrt.ingestqueue.queue.model.JobEffects;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;

/**
 * The effects node as a lock last read or wrote it: its holder is the node's only writer, so
 * what it wrote is what is there (every write still checks the version). {@code version} -1:
 * no node yet. {@code unwritten}: {@code effects} holds records not written yet, which the
 * lease's next transaction carries (the node is still at {@code version}).
 */
public record KnownEffects(JobEffects effects, int version, boolean unwritten) {
    public KnownEffects(JobEffects effects, int version) {
        this(effects, version, false);
    }

    /** From a claim's read of the job's nodes; null when that read did not answer for it. */
    public static KnownEffects of(String path, OpResult r) {
        if (r instanceof OpResult.GetDataResult d) {
            return new KnownEffects(QueueJson.read(path, d.getData(), JobEffects.class), d.getStat().getVersion());
        }
        if (r instanceof OpResult.ErrorResult e && e.getErr() == KeeperException.Code.NONODE.intValue()) {
            return new KnownEffects(JobEffects.none(), -1);
        }
        return null;
    }
}
