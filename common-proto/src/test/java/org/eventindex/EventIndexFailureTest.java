package org.eventindex;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.eventindex.spb.SpbFormatException;
import org.eventindex.stomp.StompException;
import org.junit.jupiter.api.Test;

/** The kinds common-proto's own exceptions decide where they are thrown. */
class EventIndexFailureTest {

    @Test
    void aMalformedSpbStreamIsFatal() {
        assertFalse(new SpbFormatException("f", 0, SpbFormatException.Problem.TRUNCATED, "x").retriable());
    }

    @Test
    void aStompRefusalIsFatalOnlyWhenItIsAboutCredentialsOrPermissions() {
        assertFalse(new StompException("broker b refused CONNECT: bad passcode", true).retriable());
        assertTrue(new StompException("no STOMP broker accepted a connection", false).retriable());
    }

    @Test
    void otherThrowablesTakeTheCallersDefault() {
        assertEquals(RETRIABLE, EventIndexFailure.kindOf(new IOException("reset"), RETRIABLE));
        assertEquals(FATAL, EventIndexFailure.kindOf(new IOException("reset"), FATAL));
        assertEquals(FATAL, EventIndexFailure.kindOf(new StompException("refused", true), RETRIABLE));
    }
}
