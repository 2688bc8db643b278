package org.eventindex.kudu;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static java.util.Objects.requireNonNull;

/**
 * The clock of a replayed load ({@link DatasetLoader#replaying}): a load reads the time twice, at its start
 * ({@code insert_start}, which also keys the duplicates) and at its end ({@code insert_end}); this clock answers the
 * recorded start first and the recorded end after.
 */
final class ReplayClock extends Clock {
    private final Instant start;
    private final Instant end;
    private boolean started;

    ReplayClock(Instant start, Instant end) {
        this.start = requireNonNull(start, "start is null");
        this.end = requireNonNull(end, "end is null");
    }

    @Override
    public synchronized Instant instant() {
        if (!started) {
            started = true;
            return start;
        }
        return end;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a replayed load's clock keeps UTC");
    }
}
