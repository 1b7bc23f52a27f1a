package org.cdlib.mrt.ingestqueue.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves: it reads {@link #now}, in UTC, until the test sets another instant. */
public final class MovingClock extends Clock {
    public Instant now;

    public MovingClock(String at) {
        now = Instant.parse(at);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
