package org.eventindex;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import org.eventindex.spb.SpbFormatException;
import org.junit.jupiter.api.Test;

/** The kinds common-proto's own exceptions decide where they are thrown. */
class EventIndexFailureTest {

    @Test
    void aMalformedSpbStreamIsFatal() {
        assertFalse(new SpbFormatException("f", 0, SpbFormatException.Problem.TRUNCATED, "x").retriable());
    }

    @Test
    void otherThrowablesTakeTheCallersDefault() {
        assertEquals(RETRIABLE, EventIndexFailure.kindOf(new IOException("reset"), RETRIABLE));
        assertEquals(FATAL, EventIndexFailure.kindOf(new IOException("reset"), FATAL));
        assertEquals(FATAL, EventIndexFailure.kindOf(
                new SpbFormatException("f", 0, SpbFormatException.Problem.TRUNCATED, "x"), RETRIABLE));
    }
}
