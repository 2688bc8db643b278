package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** How tests that need Ceph behave without it (the cluster itself is exercised by the producer's contract test). */
class EmbeddedCephTest {

    @Test
    void missingCephFailsInCiNamingTheBinariesAndTheInstallScript() {
        AssertionError e = assertThrows(AssertionError.class,
                () -> EmbeddedCeph.requireInstalled(List.of("radosgw", "ceph-osd"), true));
        assertTrue(e.getMessage().contains("[radosgw, ceph-osd]"), e.getMessage());
        assertTrue(e.getMessage().contains("deploy/ceph/install-ceph.sh"), e.getMessage());
        assertTrue(e.getMessage().contains("CI is set"), e.getMessage());
    }

    @Test
    void missingCephSkipsWithTheReasonOutsideCi() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> EmbeddedCeph.requireInstalled(List.of("radosgw"), false));
        assertTrue(e.getMessage().contains("radosgw") && e.getMessage().contains("not in CI"), e.getMessage());
    }

    @Test
    void installedCephPassesEitherWay() {
        assertDoesNotThrow(() -> EmbeddedCeph.requireInstalled(List.of(), true));
        assertDoesNotThrow(() -> EmbeddedCeph.requireInstalled(List.of(), false));
    }
}
