package org.cdlib.mrt.ingestqueue.queue.zk;

import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;

/** A folder that holds too many children to be listed in one answer. */
final class FolderTooLargeException extends QueueException {
    FolderTooLargeException(String path, int count) {
        super(path + " holds " + count + " entries, more than the " + QueueLimits.LISTED_CHILDREN
                + " the queue lists at once");
    }
}
