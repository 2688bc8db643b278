package org.eventindex.preflight;

import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code eventindex check}: the project's command-line conventions, without any service. */
class CheckMainTest {
    private static CommandTreeWalk.Result run(String... args) {
        return CommandTreeWalk.capture((o, e) -> CheckMain.run(args, o, e, Map.of()));
    }

    /** --help, --version, an unknown option and a stray argument (exit 2, one line), on every subcommand. */
    @Test
    void theCommandTreeWalkPasses() {
        List<List<String>> visited = CommandTreeWalk.check("eventindex check", CheckMainTest::run);
        assertEquals(List.of(List.of(), List.of("supervisor"), List.of("consumer"), List.of("lookup"),
                List.of("kudu-loader"), List.of("help")), visited);
    }

    @Test
    void aDaemonIsRequired() {
        CommandTreeWalk.Result r = run();
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("check: a daemon is required"), r.err());
    }

    @Test
    void aMissingFileIsRefusedAsTheDaemonWould() {
        CommandTreeWalk.Result r = run("consumer", "--config", "/nonexistent/consumer.properties");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("/nonexistent/consumer.properties"), r.err());
        assertEquals("", r.out());
    }
}
