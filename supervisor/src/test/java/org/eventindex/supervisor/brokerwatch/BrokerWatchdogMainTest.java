package org.eventindex.supervisor.brokerwatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eventindex.cli.CommandTreeWalk;
import org.junit.jupiter.api.Test;

/** {@code eventindex broker-watchdog}: --help, --version, and bad options refused with exit 2 naming the option. */
class BrokerWatchdogMainTest {
    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BrokerWatchdogMain.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpAndVersion() {
        Run help = run("--help");
        assertEquals(0, help.status());
        for (String option : new String[] {"--broker", "--tls", "--user", "--password-file", "--pid-file",
            "--interval", "--timeout", "--silent-probes"}) {
            assertTrue(help.out().contains(option), option + " missing from --help:\n" + help.out());
        }
        Run version = run("--version");
        assertEquals(0, version.status());
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
        Run remote = run("--broker", "mq1.example.org:61614", "--pid-file", "/tmp/none.pid");
        assertEquals(2, remote.status());
        assertTrue(remote.err().contains("--broker mq1.example.org:61614 is not a loopback address"), remote.err());

        Run lonely = run("--broker", "127.0.0.1:61614", "--pid-file", "/tmp/none.pid", "--user", "watchdog");
        assertEquals(2, lonely.status());
        assertTrue(lonely.err().contains("--user and --password-file go together"), lonely.err());

        Run probes = run("--broker", "127.0.0.1:61614", "--pid-file", "/tmp/none.pid", "--silent-probes", "0");
        assertEquals(2, probes.status());
        assertTrue(probes.err().contains("--silent-probes must be at least 1"), probes.err());

        Run interval = run("--broker", "127.0.0.1:61614", "--pid-file", "/tmp/none.pid", "--interval", "soon");
        assertEquals(2, interval.status());
        assertTrue(interval.err().contains("--interval 'soon' is not a duration"), interval.err());

        Run missing = run("--broker", "127.0.0.1:61614");
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("--pid-file"), missing.err());
    }
}
