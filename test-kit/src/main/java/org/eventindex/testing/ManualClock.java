package org.eventindex.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock that stands still until it is moved by hand: time in a test or a benchmark is injected. */
public final class ManualClock extends Clock {
    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    /** Moves the clock forward (or back, with a negative {@code d}). */
    public synchronized void advance(Duration d) {
        now = now.plus(d);
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
