package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** A missing prerequisite fails the test in CI and skips it elsewhere, with the same reason. */
class PrerequisitesTest {

    @Test
    void missingInCiFailsNamingWhatIsMissing() {
        AssertionError e = assertThrows(AssertionError.class,
                () -> Prerequisites.require(false, "target/x.jar does not exist", true));
        assertTrue(e.getMessage().contains("target/x.jar does not exist") && e.getMessage().contains("CI is set"),
                e.getMessage());
    }

    @Test
    void missingOutsideCiSkipsWithTheReason() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> Prerequisites.require(false, "target/x.jar does not exist", false));
        assertTrue(e.getMessage().contains("target/x.jar does not exist") && e.getMessage().contains("not in CI"),
                e.getMessage());
    }

    @Test
    void presentPassesEitherWay() {
        assertDoesNotThrow(() -> Prerequisites.require(true, "unused", true));
        assertDoesNotThrow(() -> Prerequisites.require(true, "unused", false));
    }
}
