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

    @Test
    void swapNeedsThreeDifferentPrefixes() {
        assertEquals(2, run("swap", "--masters", "k:7051", "--target-prefix", "n_", "--retired-prefix", "n_",
                "--master", "local[1]"));
        assertTrue(err().contains("--retired-prefix 'n_' must differ from --prefix and --target-prefix"), err());
    }

    @Test
    void aCatchUpTakesNoSelection() {
        assertEquals(2, run("catch-up", "--masters", "k:7051", "--target-prefix", "n_", "--epoch", "3",
                "--master", "local[1]"));
        assertTrue(err().contains("a catch-up takes every dataset the target tables lack"), err());
    }

    @Test
    void dropOldRefusesTheLiveTables() {
        assertEquals(2, run("drop-old", "--masters", "k:7051", "--prefix", "p_", "--retired-prefix", "p_"));
        assertTrue(err().contains("names the live tables"), err());
    }

    @Test
    void maxTasksIsPositive() {
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--all", "--max-tasks", "0",
                "--master", "local[1]"));
        assertTrue(err().contains("--max-tasks must be at least 1"), err());
    }

    @Test
    void theSplitIsTabletOrRun() {
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--all", "--split", "dataset",
                "--master", "local[1]"));
        assertTrue(err().contains("--split is tablet or run, not 'dataset'"), err());
    }

    @Test
    void aFirstEpochNeedsANewEpochSize() {
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--all", "--first-epoch", "3",
                "--master", "local[1]"));
        assertTrue(err().contains("--first-epoch goes with --epoch-max-events"), err());
        assertEquals(2, run("--masters", "k:7051", "--target-prefix", "n_", "--all", "--epoch-max-events", "0",
                "--master", "local[1]"));
        assertTrue(err().contains("the epoch size must be at least 1 event"), err());
    }

    /** --help, --version and an unknown option behave as on every command of the project. */
    @Test
    void bothCommandsFollowTheCommandLineConventions() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex rebuild",
                args -> CommandTreeWalk.capture((o, e) -> RebuildMain.run(args, o, e))));
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex verify",
                args -> CommandTreeWalk.capture((o, e) -> VerifyMain.run(args, o, e))));
        for (String command : ShadowMain.COMMANDS) {
            assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex rebuild " + command,
                    args -> CommandTreeWalk.capture((o, e) -> RebuildMain.run(withFirst(command, args), o, e))));
        }
    }

    private static String[] withFirst(String command, String[] args) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }
}
