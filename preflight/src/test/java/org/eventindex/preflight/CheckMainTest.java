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
                List.of("kudu-loader"), List.of("producer"), List.of("help")), visited);
    }

    @Test
    void aDaemonIsRequired() {
        CommandTreeWalk.Result r = run();
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("check: a daemon is required"), r.err());
    }

    /** The producer's options go to the producer's parser, which refuses what the producer would, exit 2. */
    @Test
    void producerOptionsTheProducerRefusesStopBeforeAnyCheck() {
        CommandTreeWalk.Result missing = run("producer", "/nonexistent/job.ei.spb", "--brokers", "127.0.0.1:1",
                "--s3-endpoint", "http://127.0.0.1:1", "--bucket", "eventindex", "--timeout", "3");
        assertEquals(2, missing.exit(), missing.err());
        assertEquals("", missing.out());
        assertTrue(missing.err().startsWith("check producer: /nonexistent/job.ei.spb: cannot read SPB file"),
                missing.err());
        assertTrue(missing.err().contains("The producer would refuse these options (exit 2"), missing.err());

        CommandTreeWalk.Result dryRun = run("producer", "/nonexistent/job.ei.spb", "--dry-run");
        assertEquals(2, dryRun.exit(), dryRun.err());
        assertTrue(dryRun.err().contains("/nonexistent/job.ei.spb"), dryRun.err());

        CommandTreeWalk.Result misspelt = run("producer", "--brokers=127.0.0.1:1", "--bukcet", "eventindex");
        assertEquals(2, misspelt.exit(), misspelt.err());
        assertTrue(misspelt.err().contains("unknown option --bukcet"), misspelt.err());
    }

    @Test
    void aMissingFileIsRefusedAsTheDaemonWould() {
        CommandTreeWalk.Result r = run("consumer", "--config", "/nonexistent/consumer.properties");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("/nonexistent/consumer.properties"), r.err());
        assertEquals("", r.out());
    }
}
