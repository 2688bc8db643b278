package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Instant;

/**
 * One recorded fact, as pushed to {@code /events} subscribers: the journal sequence number, the event type, the
 * dataset it concerns (null for rejected messages without one) and that dataset's state afterwards.
 */
public record StateChange(long seq, @JsonSerialize(using = ToStringSerializer.class) Instant at, String event,
                          String dataset, CollectionState state, String detail) {

    /** Receives every change, on the thread that recorded it; must not block. */
    @FunctionalInterface
    interface Listener {
        Listener NONE = c -> { };

        void changed(StateChange change);
    }
}
