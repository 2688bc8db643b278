package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Objects;

/**
 * One line of the journal: a sequence number (1, 2, 3... without gaps), the time it was recorded, and the event.
 *
 * @param seq      position in the journal; the total order every decision depends on
 * @param tsMillis wall-clock time of recording, epoch milliseconds, from the supervisor's clock
 */
public record JournalEntry(@JsonProperty("seq") long seq, @JsonProperty("ts") long tsMillis,
                           @JsonProperty("event") JournalEvent event) {
    public JournalEntry {
        if (seq < 1) {
            throw new IllegalArgumentException("journal sequence number must be >= 1: " + seq);
        }
        Objects.requireNonNull(event, "event is null");
    }
}
