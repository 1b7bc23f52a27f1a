package org.cdlib.mrt.ingestqueue.queue.model;

import org.apache.zookeeper.data.Stat;

/**
 * A folder's child changes as its {@code Stat} counts them: {@code cversion} goes up by one for
 * every child created or deleted, {@code numChildren} is creates minus deletes. Two of them tell
 * exactly how many children were created in between, with no watch and no listing, whichever
 * host made them.
 */
public record FolderChanges(int cversion, int children) {
    public static final FolderChanges NONE = new FolderChanges(0, 0);

    public static FolderChanges of(Stat st) {
        return st == null ? NONE : new FolderChanges(st.getCversion(), st.getNumChildren());
    }

    /**
     * Children created since {@code earlier}, 0 if the folder was made anew in between. cversion is
     * a 32-bit counter: its difference modulo 2^32 is still the changes made, if fewer than 2^31.
     */
    public long createdSince(FolderChanges earlier) {
        int changes = cversion - earlier.cversion;
        return changes < 0 ? 0 : Math.max(0, ((long) changes + (children - earlier.children)) / 2);
    }

    /** Children created since the folder was. */
    public long created() {
        return Math.max(0, (Integer.toUnsignedLong(cversion) + children) / 2);
    }
}
