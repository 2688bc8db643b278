package org.eventindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.eventindex.cli.ProjectVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command of the deploy module (demo, chaos, the chaos broker, the consumer benchmark): {@code --help} prints
 * the usage and {@code --version} the project version, exit 0; an unknown option exits 2 naming it. None of them
 * starts anything here.
 */
class DeployCommandsTest {
    /** A command's entry point that returns its exit status instead of exiting. */
    interface Command {
        int execute(String[] args, PrintStream out, PrintStream err);
    }

    static Stream<Arguments> commands() {
        return Stream.of(
                Arguments.of("bin/demo", (Command) DemoMain::execute),
                Arguments.of("bin/chaos", (Command) org.eventindex.deploy.chaos.ChaosTestAccess::execute),
                Arguments.of("BrokerMain", (Command) org.eventindex.deploy.chaos.ChaosTestAccess::executeBroker),
                Arguments.of("bin/bench-consumer", (Command) org.eventindex.deploy.bench.BenchTestAccess::execute));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("commands")
    void helpAndVersionExitZeroAndUnknownOptionsExitTwo(String name, Command command) {
        Run help = run(command, "--help");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().startsWith("Usage: " + name), help.out());
        assertTrue(help.out().contains("-V, --version"), help.out());

        Run version = run(command, "--version");
        assertEquals(0, version.code(), version.err());
        assertEquals(name + " " + ProjectVersion.get(), version.out().strip());

        Run unknown = run(command, "--frobnicate");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().startsWith(name + ": Unknown option: '--frobnicate'"), unknown.err());
        assertTrue(unknown.err().contains("Run '" + name + " --help' for the options."), unknown.err());
        assertEquals("", unknown.out());
    }

    private record Run(int code, String out, String err) {
    }

    private static Run run(Command command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = command.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
