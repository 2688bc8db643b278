package org.eventindex.deploy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The {@code bin/demo} options: defaults, every option, and refusals that name the option. */
final class DemoOptionsTest {
    @Test
    void defaults() {
        assertEquals(new DemoMain.DemoOptions(Path.of("work", "demo"), 1, 3, 1, 4, 15, false), DemoMain.parse());
        assertEquals(3, DemoMain.demoDatasets(1, 3).size());
    }

    @Test
    void everyOption() {
        assertEquals(new DemoMain.DemoOptions(Path.of("/tmp/d"), 2, 1, 3, 5, 7, true),
                DemoMain.parse("--work", "/tmp/d", "--scale", "2", "--datasets", "1", "--consumers", "3",
                    "--parallel", "5", "--timeout-minutes", "7", "--keep"));
        assertEquals("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824",
                DemoMain.demoDatasets(1, 1).get(0).datasetName());
    }

    @Test
    void refusesBadValuesNamingTheOption() {
        assertEquals("--datasets must be 1, 2 or 3 (the demo has 3), got 4", assertThrows(
                ParameterException.class, () -> DemoMain.parse("--datasets", "4")).getMessage());
        assertEquals("--datasets must be >= 1, got 0", assertThrows(ParameterException.class,
                () -> DemoMain.parse("--datasets", "0")).getMessage());
        assertEquals("Unknown option: '--no-build'", assertThrows(ParameterException.class,
                () -> DemoMain.parse("--no-build")).getMessage());
        assertEquals("Invalid value for option '--scale': 'big' is not an int", assertThrows(
                ParameterException.class, () -> DemoMain.parse("--scale", "big")).getMessage());
    }
}
