package org.eventindex.stomp;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.eventindex.EventIndexFailure;
import org.junit.jupiter.api.Test;

/** The kind a STOMP failure decides where it is thrown (under the exception root of common-proto). */
class StompExceptionTest {

    @Test
    void aStompRefusalIsFatalOnlyWhenItIsAboutCredentialsOrPermissions() {
        assertFalse(new StompException("broker b refused CONNECT: bad passcode", true).retriable());
        assertTrue(new StompException("no STOMP broker accepted a connection", false).retriable());
    }

    @Test
    void itsKindWinsOverTheCallersDefault() {
        assertEquals(FATAL, EventIndexFailure.kindOf(new StompException("refused", true), RETRIABLE));
    }
}
