package org.cdlib.mrt.ingestqueue.queue.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code /jobs/JID/metadata}: the object's ERC as mrt-zk keeps it ({@code erc_who}, {@code erc_what},
 * {@code erc_when}, {@code erc_where}; a key without a value is left out, as org.json does). Written
 * with the job for mrt-zk's readers; this queue's steps read the same values from the configuration.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobMetadata(String ercWho, String ercWhat, String ercWhen, String ercWhere) {

    /** The configuration's ERC; null when it has none (mrt-zk writes no node then). */
    public static JobMetadata of(JobConfiguration c) {
        if (c.ercWho() == null && c.ercWhat() == null && c.ercWhen() == null && c.ercWhere() == null) {
            return null;
        }
        return new JobMetadata(c.ercWho(), c.ercWhat(), c.ercWhen(), c.ercWhere());
    }
}
