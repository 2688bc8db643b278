package org.eventindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintStream;
import java.util.List;
import java.util.stream.Stream;
import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command of the deploy module (demo, chaos, the chaos broker and S3 server, the driver on hosts, the
 * differential run; the benchmarks' are the benchmarks module's {@code BenchCommandsTest}), as typed: {@code --help} prints the usage naming the command and
 * {@code --version} the project version, exit 0; an unknown option and stray arguments exit 2 naming them
 * ({@link CommandTreeWalk}). None of them starts anything here.
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
                Arguments.of("chaos-broker", (Command) org.eventindex.deploy.chaos.ChaosTestAccess::executeBroker),
                Arguments.of("chaos-s3", (Command) org.eventindex.deploy.chaos.ChaosTestAccess::executeS3),
                Arguments.of("hosts-flow", (Command) org.eventindex.deploy.chaos.ChaosTestAccess::executeHostsFlow),
                Arguments.of("chaos-proxy", (Command) org.eventindex.deploy.chaos.ChaosTestAccess::executeProxy),
                Arguments.of("bin/differential",
                        (Command) org.eventindex.deploy.differential.DifferentialTestAccess::execute));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("commands")
    void helpVersionUnknownOptionsAndStrayArgumentsAsTyped(String name, Command command) {
        assertEquals(List.of(List.of()), CommandTreeWalk.check(name,
                args -> CommandTreeWalk.capture((out, err) -> command.execute(args, out, err))));
    }
}
