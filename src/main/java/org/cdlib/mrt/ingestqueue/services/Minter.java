package org.cdlib.mrt.ingestqueue.services;

import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.Job;

/** Mints the primary identifier (an ARK) of a new object. */
public interface Minter {
    String mint(Profile profile, Job job) throws ServiceException, InterruptedException;

    /**
     * Completes a freshly minted id's metadata once the ARK is safely recorded (EZID: its
     * {@code _target} and the ERC's {@code where}). Nothing to do by default.
     */
    default void describe(Profile profile, Job job, String ark) throws ServiceException, InterruptedException {
    }
}
