package org.cdlib.mrt.ingestqueue.services;

import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.Job;

/** Mints the primary identifier (an ARK) of a new object. */
public interface Minter {
    String mint(Profile profile, Job job) throws ServiceException, InterruptedException;
}
