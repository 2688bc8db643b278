package org.eventindex.brokerwatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.Test;

/** {@code eventindex broker-watchdog}: --help, --version, and bad options refused with exit 2 naming the option. */
class BrokerWatchdogMainTest {
    private static final String[] LOCAL = {"--broker", "127.0.0.1:61614", "--pid-file", "/tmp/none.pid"};

    private static CommandTreeWalk.Result run(String... args) {
        return CommandTreeWalk.capture((o, e) -> BrokerWatchdogMain.execute(args, o, e));
    }

    private static CommandTreeWalk.Result run(String[] local, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of(local));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    @Test
    void helpAndVersion() {
        CommandTreeWalk.Result help = run("--help");
        assertEquals(0, help.exit());
        for (String option : new String[] {"--broker", "--tls", "--user", "--password-file", "--pid-file",
            "--interval", "--timeout", "--silent-probes", "--http-host", "--http-port"}) {
            assertTrue(help.out().contains(option), option + " missing from --help:\n" + help.out());
        }
        CommandTreeWalk.Result version = run("--version");
        assertEquals(0, version.exit());
        assertTrue(!version.out().isBlank());
    }

    /** The project's walk: --help, --version, an unknown option and a stray argument (exit 2, one line). */
    @Test
    void theCommandTreeWalkPasses() {
        List<List<String>> visited = CommandTreeWalk.check("eventindex broker-watchdog",
                args -> CommandTreeWalk.capture((o, e) -> BrokerWatchdogMain.execute(args, o, e)));
        assertEquals(List.of(List.of()), visited);
    }

    @Test
    void badOptionsAreRefusedNamingTheOption() {
        CommandTreeWalk.Result remote = run("--broker", "mq1.example.org:61614", "--pid-file", "/tmp/none.pid");
        assertEquals(2, remote.exit());
        assertTrue(remote.err().contains("--broker mq1.example.org:61614 is not a loopback address"), remote.err());

        CommandTreeWalk.Result lonely = run(LOCAL, "--user", "watchdog");
        assertEquals(2, lonely.exit());
        assertTrue(lonely.err().contains("--user and --password-file go together"), lonely.err());

        CommandTreeWalk.Result probes = run(LOCAL, "--silent-probes", "0");
        assertEquals(2, probes.exit());
        assertTrue(probes.err().contains("--silent-probes must be at least 1"), probes.err());

        CommandTreeWalk.Result interval = run(LOCAL, "--interval", "soon");
        assertEquals(2, interval.exit());
        assertTrue(interval.err().contains("--interval 'soon' is not a duration"), interval.err());

        CommandTreeWalk.Result port = run(LOCAL, "--http-port", "70000");
        assertEquals(2, port.exit());
        assertTrue(port.err().contains("--http-port must be within 0..65535: 70000"), port.err());

        CommandTreeWalk.Result missing = run("--broker", "127.0.0.1:61614");
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("--pid-file"), missing.err());
    }
}
