package org.cdlib.mrt.ingestqueue.profile;

import java.util.Collection;
import java.util.Optional;

/** Where the queue looks profiles up by name ({@code ProfileID}). */
public interface ProfileRegistry {

    Optional<Profile> find(String name);

    Collection<Profile> all();

    /** The profile, or an {@link UnknownProfileException} that names it. */
    default Profile require(String name) {
        return find(name).orElseThrow(() -> new UnknownProfileException(name));
    }

    class UnknownProfileException extends RuntimeException {
        public UnknownProfileException(String name) {
            super("unknown profile '" + name + "'");
        }
    }
}
