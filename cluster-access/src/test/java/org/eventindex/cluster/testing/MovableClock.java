package org.eventindex.cluster.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that follows the system clock with an offset a test sets: {@link #moveTo} jumps it to an instant (it then
 * runs on from there), {@link #moveBack} makes it the system clock again. For the Kerberos renewal, whose decision
 * compares this clock with the ticket's start and end times: a test moves it past the renewal point instead of
 * waiting for it.
 */
public final class MovableClock extends Clock {
    private final Clock system = Clock.systemUTC();
    private volatile Duration offset = Duration.ZERO;

    @Override
    public Instant instant() {
        return system.instant().plus(offset);
    }

    /** From now on, the clock reads {@code at} and runs on from there. */
    public void moveTo(Instant at) {
        offset = Duration.between(system.instant(), at);
    }

    /** The system clock again. */
    public void moveBack() {
        offset = Duration.ZERO;
    }

    /** How far ahead of the system clock it is. */
    public Duration offset() {
        return offset;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a MovableClock is in UTC");
    }

    @Override
    public String toString() {
        return "MovableClock[system + " + offset + "]";
    }
}
