package org.eventindex.deploy.chaos;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code bin/chaos} options: defaults, every option, and refusals that name the option. */
class ChaosMainTest {
    @Test
    void defaults() {
        ChaosMain.Options o = ChaosMain.parse();
        assertEquals(1, o.seed());
        assertEquals(10, o.rounds());
        assertEquals(30, o.minutes());
        assertEquals(2, o.datasets());
        assertEquals(1, o.faults());
        assertEquals(Set.of(), o.only());
        assertTrue(o.work().isAbsolute() && o.work().getFileName().toString().startsWith("chaos-1-"), o.work()
                .toString());
    }

    @Test
    void everyOption() {
        ChaosMain.Options o = ChaosMain.parse("--seed", "42", "--rounds", "0", "--minutes", "7", "--datasets", "3",
            "--faults", "2", "--work", "/tmp/x", "--only", "PAUSE_BROKER,ZK_MINORITY", "--network", "eih-1-1");
        assertEquals(new ChaosMain.Options(42, 0, 7, 3, 2, Path.of("/tmp/x"),
                Set.of(Fault.PAUSE_BROKER, Fault.ZK_MINORITY), "eih-1-1"), o);
        // what the first process hands the driver it starts on the control host: the same options
        assertEquals(o, ChaosMain.parse(o.args("eih-1-1").toArray(String[]::new)));
    }

    @Test
    void refusesBadValuesNamingTheOption() {
        assertEquals("--minutes must be at least 1, was 0", assertThrows(ParameterException.class,
                () -> ChaosMain.parse("--minutes", "0")).getMessage());
        assertEquals("Unknown options: '--sead', '1'", assertThrows(ParameterException.class,
                () -> ChaosMain.parse("--sead", "1")).getMessage());
        assertEquals("Missing required parameter for option '--rounds' (R)", assertThrows(ParameterException.class,
                () -> ChaosMain.parse("--rounds")).getMessage());
        assertTrue(assertThrows(ParameterException.class, () -> ChaosMain.parse("--only", "KILL_BROKR")).getMessage()
                .contains("KILL_BROKR"));
        assertEquals("Invalid value for option '--seed': 'x' is not a long", assertThrows(ParameterException.class,
                () -> ChaosMain.parse("--seed", "x")).getMessage());
    }
}
