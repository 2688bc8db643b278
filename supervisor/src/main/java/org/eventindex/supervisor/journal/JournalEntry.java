package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.eventindex.message.FormatVersion;

import java.util.Objects;

/**
 * One line of the journal: its format version, a sequence number (1, 2, 3... without gaps), the time it was recorded,
 * whether a reader that cannot apply it may skip it, and the event
 * ({@code {"v":1,"seq":7,"ts":...,"event":{"type":"OBJECT_REPORTED",...}}}, see {@link JournalFormat}).
 *
 * @param version   the journal format version a reader needs to apply the line; 1 for a line without {@code "v"}
 *                  (release 0.1.0 wrote none)
 * @param seq       position in the journal; the total order every decision depends on
 * @param tsMillis  wall-clock time of recording, epoch milliseconds, from the supervisor's clock
 * @param ignorable a reader that does not know the event's type or version may skip the line (written only when
 *                  true)
 */
@JsonPropertyOrder({FormatVersion.FIELD, "seq", "ts", "ignorable", "event"})
public record JournalEntry(@JsonProperty(FormatVersion.FIELD) int version, @JsonProperty("seq") long seq,
                           @JsonProperty("ts") long tsMillis,
                           @JsonProperty("ignorable") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean ignorable,
                           @JsonProperty("event") JournalEvent event) {
    public JournalEntry {
        if (version == 0) {
            version = FormatVersion.FIRST; // no "v": a line of release 0.1.0
        }
        if (version < FormatVersion.FIRST) {
            throw new IllegalArgumentException("journal format version must be >= 1: " + version);
        }
        if (seq < 1) {
            throw new IllegalArgumentException("journal sequence number must be >= 1: " + seq);
        }
        Objects.requireNonNull(event, "event is null");
    }

    /** The line this supervisor writes for {@code event}: the version and ignorability its type declares. */
    public JournalEntry(long seq, long tsMillis, JournalEvent event) {
        this(JournalFormat.version(Objects.requireNonNull(event, "event is null")), seq, tsMillis,
                JournalFormat.ignorable(event), event);
    }
}
