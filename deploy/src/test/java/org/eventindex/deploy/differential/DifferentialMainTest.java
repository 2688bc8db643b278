package org.eventindex.deploy.differential;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code bin/differential} options: defaults, every option, and refusals that name the option. */
class DifferentialMainTest {
    @Test
    void defaults() {
        DifferentialRun.Options o = DifferentialMain.parse();
        assertEquals(1, o.seed());
        assertEquals(0, o.first());
        assertEquals(100, o.cases());
        assertEquals(2, o.producers());
        assertTrue(o.work().isAbsolute() && o.work().getFileName().toString().startsWith("differential-1-"),
                o.work().toString());
    }

    @Test
    void everyOption() {
        assertEquals(new DifferentialRun.Options(-7, 17, 1, Path.of("/tmp/x"), 3), DifferentialMain.parse("--seed",
                "-7", "--first", "17", "--cases", "1", "--producers", "3", "--work", "/tmp/x"));
    }

    @Test
    void refusesBadValuesNamingTheOption() {
        assertEquals("--cases must be at least 1, was 0", assertThrows(ParameterException.class,
                () -> DifferentialMain.parse("--cases", "0")).getMessage());
        assertEquals("--first must be at least 0, was -1", assertThrows(ParameterException.class,
                () -> DifferentialMain.parse("--first", "-1")).getMessage());
        assertEquals("--producers must be at least 1, was 0", assertThrows(ParameterException.class,
                () -> DifferentialMain.parse("--producers", "0")).getMessage());
        assertEquals("--first + --cases must stay below 2^31", assertThrows(ParameterException.class,
                () -> DifferentialMain.parse("--first", "2147483000", "--cases", "1000")).getMessage());
        assertEquals("Invalid value for option '--seed': 'x' is not a long", assertThrows(ParameterException.class,
                () -> DifferentialMain.parse("--seed", "x")).getMessage());
        assertEquals("Unknown options: '--case', '3'", assertThrows(ParameterException.class,
                () -> DifferentialMain.parse("--case", "3")).getMessage());
    }
}
