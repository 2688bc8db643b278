package org.eventindex.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The command lines of the benchmarks in this package, as typed: {@code --help} prints the usage naming the command
 * and {@code --version} the project version, exit 0; an unknown option and stray arguments exit 2 naming them
 * ({@link CommandTreeWalk}). None of them starts anything here.
 */
class BenchCommandsTest {
    /** A command's entry point that returns its exit status instead of exiting. */
    interface Command {
        int execute(String[] args, PrintStream out, PrintStream err);
    }

    static Stream<Arguments> commands() {
        return Stream.of(
                Arguments.of("bin/bench-consumer", (Command) ConsumerBenchMain::execute),
                Arguments.of("bin/bench-seed", (Command) BenchSeedMain::execute),
                Arguments.of("bin/bench-supervisor-rate", (Command) SupervisorRateBench::execute));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("commands")
    void helpVersionUnknownOptionsAndStrayArgumentsAsTyped(String name, Command command) {
        assertEquals(List.of(List.of()), CommandTreeWalk.check(name,
                args -> CommandTreeWalk.capture((out, err) -> command.execute(args, out, err))));
    }

    @Test
    void benchSeedRefusesATabletServerFlagItCouldNotPass() {
        for (String bad : List.of("log_segment_size_mb=8", "--a=1,--b=2")) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = BenchSeedMain.execute(new String[] {"--scale", "0.01", "--tserver-flag", bad},
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            String message = err.toString(StandardCharsets.UTF_8);
            assertEquals(2, code, message);
            assertTrue(message.contains("--tserver-flag: '" + bad + "' is not one flag"), message);
        }
    }
}
