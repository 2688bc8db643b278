package org.eventindex.cli;

import org.eventindex.ProjectVersion;
import org.eventindex.testing.CommandTreeWalk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The conventions every command gets from {@link CommandLines}. */
class CommandLinesTest {
    @Command(name = "tool", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            subcommands = Sub.class)
    static final class Tool implements Callable<Integer> {
        @Override
        public Integer call() {
            return 0;
        }
    }

    @Command(name = "sub", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class)
    static final class Sub implements Callable<Integer> {
        @Option(names = "--count", required = true)
        int count;
        @Parameters(arity = "0..1")
        String file;

        @Override
        public Integer call() {
            return 40 + count;
        }
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CommandLines.execute(new Tool(), args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theVersionIsTheProjectsFilledInByTheBuild() {
        assertFalse(ProjectVersion.get().isBlank());
        assertFalse(ProjectVersion.get().contains("${"), ProjectVersion.get());
        assertEquals(0, run("sub", "--version"));
        assertEquals("tool sub " + ProjectVersion.describe(), out.toString(StandardCharsets.UTF_8).strip());
    }

    @Test
    void helpGoesToStdoutWithExitZero() {
        assertEquals(0, run("sub", "--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: tool sub"), out.toString());
        assertEquals("", err());
    }

    @Test
    void theCommandsExitStatusIsReturned() {
        assertEquals(43, run("sub", "--count", "3"));
    }

    @Test
    void usageErrorsAreOneLineNamingTheOptionThenAHintAndExitTwo() {
        assertEquals(2, run("sub", "--count", "three"));
        assertEquals("tool sub: Invalid value for option '--count': 'three' is not an int\n"
                + "Run 'tool sub --help' for the options.\n", err().replace(System.lineSeparator(), "\n"));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    /** picocli checks required options first; a misspelt one is the better message. */
    @Test
    void anUnknownOptionIsReportedBeforeTheMissingRequiredOne() {
        assertEquals(2, run("sub", "--cuont", "3"));
        assertTrue(err().startsWith("tool sub: Unknown option"), err());
        assertTrue(err().contains("'--cuont'"), err());
    }

    @Test
    void atFilesAreTakenLiterally() {
        assertEquals(43, run("sub", "--count", "3", "@no-such-file"));
    }

    @Test
    void theWalkVisitsEveryListedCommand() {
        assertEquals(java.util.List.of(java.util.List.of(), java.util.List.of("sub")), CommandTreeWalk.check("tool",
                args -> CommandTreeWalk.capture((o, e) -> CommandLines.execute(new Tool(), args, o, e))));
    }

    /** A help that lists a command that does not exist (as 'kudu-loader reload' was) fails the walk. */
    @Test
    void theWalkFailsOnAListedCommandThatDoesNotExist() {
        CommandTreeWalk.Runner real = args -> CommandTreeWalk.capture((o, e) -> CommandLines.execute(new Tool(), args,
                o, e));
        CommandTreeWalk.Runner listsReload = args -> {
            CommandTreeWalk.Result r = real.run(args);
            return args.length == 1 && args[0].equals("--help") ? new CommandTreeWalk.Result(r.exit(),
                    r.out().replace("Commands:\n", "Commands:\n  reload  Loads again.\n"), r.err()) : r;
        };
        assertTrue(real.run("--help").out().contains("Commands:\n"), "the help this test changes");
        org.opentest4j.AssertionFailedError e = org.junit.jupiter.api.Assertions.assertThrows(
                org.opentest4j.AssertionFailedError.class, () -> CommandTreeWalk.check("tool", listsReload));
        assertTrue(e.getMessage().startsWith("tool reload --help"), e.getMessage());
    }

    /** A usage that names a class instead of the command as typed fails the walk. */
    @Test
    void theWalkFailsOnAUsageNamingAClass() {
        org.opentest4j.AssertionFailedError e = org.junit.jupiter.api.Assertions.assertThrows(
                org.opentest4j.AssertionFailedError.class, () -> CommandTreeWalk.check("eventindex tool",
                        args -> CommandTreeWalk.capture((o, err) -> CommandLines.execute(new Tool(), args, o, err))));
        assertTrue(e.getMessage().contains("does not show its usage"), e.getMessage());
    }

    @Test
    void theKitsCommandWalkExpectsThisUsageErrorStatus() {
        assertEquals(CommandLines.USAGE_ERROR, CommandTreeWalk.USAGE_ERROR);
    }
}
