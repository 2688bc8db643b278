package org.eventindex.rebuild;

import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command lines' (rebuild, verify) usage errors, refused before any Spark or Kudu is reached. */
class RebuildMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return RebuildMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpNamesTheSelectionsAndTheSparkMaster() {
        assertEquals(0, run("--help"));
        String help = out.toString(StandardCharsets.UTF_8);
        for (String option : new String[] {"--epoch", "--dataset", "--all", "--target-prefix", "--master", "--conf"}) {
            assertTrue(help.contains(option), help);
        }
    }

    @Test
    void aSelectionIsRequired() {
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--master", "local[1]"));
        assertTrue(err().contains("--epoch N, --dataset GLOB or --all"), err());
    }

    @Test
    void allExcludesTheOtherSelections() {
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--all", "--epoch", "3"));
        assertTrue(err().contains("--all takes every dataset"), err());
    }

    @Test
    void theSourceTablesAreNotATarget() {
        assertEquals(2, run("--masters", "k:7051", "--prefix", "p_", "--target-prefix", "p_", "--all"));
        assertTrue(err().contains("names the source tables"), err());
    }

    @Test
    void aSparkMasterIsRequiredOutsideSparkSubmit() {
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--all"));
        assertTrue(err().contains("no Spark master"), err());
    }

    @Test
    void aBadTargetLayoutIsAUsageError() {
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--all", "--replicas", "2"));
        assertTrue(err().contains("replicas must be a positive odd number"), err());
    }

    @Test
    void verifyTakesTheSameSelectionAndRepair() {
        int status = VerifyMain.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status);
        String help = out.toString(StandardCharsets.UTF_8);
        assertTrue(help.contains("--repair") && help.contains("--epoch") && help.contains("--master"), help);
        assertEquals(2, VerifyMain.run(new String[] {"--masters", "k:7051", "--master", "local[1]"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err().contains("--epoch N, --dataset GLOB or --all"), err());
    }

    /** --help, --version and an unknown option behave as on every command of the project. */
    @Test
    void bothCommandsFollowTheCommandLineConventions() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex rebuild",
                args -> CommandTreeWalk.capture((o, e) -> RebuildMain.run(args, o, e))));
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex verify",
                args -> CommandTreeWalk.capture((o, e) -> VerifyMain.run(args, o, e))));
    }
}
