package org.eventindex.spb;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.Trailer_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

/**
 * One message read from an SPB stream, with the uncompressed byte offset of its type word (for error messages).
 */
public sealed interface SpbRecord {
    long offset();

    record Header(Header_p1 message, long offset) implements SpbRecord {
    }

    record BeginGuid(BeginGUID_p1 message, long offset) implements SpbRecord {
    }

    record TriggerMenu(TriggerMenu_p1 message, long offset) implements SpbRecord {
    }

    record Event(EIEvent_p1 message, long offset) implements SpbRecord {
    }

    /**
     * An event as its canonical serialization, scanned in place ({@link SpbReader#rawEvents}): {@code event} and the
     * array it points into are the reader's and valid only until the reader's next call.
     */
    record RawEvent(EventScan event, long offset) implements SpbRecord {
    }

    record EndGuid(EndGUID_p1 message, long offset) implements SpbRecord {
    }

    record Trailer(Trailer_p1 message, long offset) implements SpbRecord {
    }
}
