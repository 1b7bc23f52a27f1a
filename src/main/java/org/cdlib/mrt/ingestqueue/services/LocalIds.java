package org.cdlib.mrt.ingestqueue.services;

import java.util.Optional;

/**
 * The index of local ids: which ARK a collection's local id is bound to. The local inventory's
 * database (H2, or PostgreSQL shared by every host) or Merritt inventory's own calls.
 */
public interface LocalIds {
    /** The ARK a local id of this collection is bound to, if any. */
    Optional<String> primaryFor(String profile, String localId) throws ServiceException, InterruptedException;

    /** Binds the local id to {@code ark} unless it is bound already; returns the ARK it is bound to now. */
    String bind(String profile, String localId, String ark) throws ServiceException, InterruptedException;
}
