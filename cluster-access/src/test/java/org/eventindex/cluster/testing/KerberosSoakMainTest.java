package org.eventindex.cluster.testing;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** bin/kerberos-soak's command line: help, version and bad usage, without starting anything. */
class KerberosSoakMainTest {
    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = KerberosSoakMain.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpAndVersionExitZero() {
        Run help = run("--help");
        assertEquals(0, help.status());
        assertTrue(help.out().startsWith("Usage: bin/kerberos-soak "), help.out());
        assertTrue(help.out().contains("--lifetimes") && help.out().contains("--ticket-seconds"), help.out());
        Run version = run("--version");
        assertEquals(0, version.status());
        assertTrue(version.out().startsWith("bin/kerberos-soak "), version.out());
    }

    @Test
    void badUsageIsOneLineNamingTheOptionAndExitTwo() {
        String before = System.getProperty(KerberosSoakMain.CONSUMER_CLASSPATH);
        try {
            System.clearProperty(KerberosSoakMain.CONSUMER_CLASSPATH);
            Run missing = run("--lifetimes", "2");
            assertEquals(2, missing.status());
            assertTrue(missing.err().startsWith("bin/kerberos-soak: no class path of the consumer daemon"),
                    missing.err());
            System.setProperty(KerberosSoakMain.CONSUMER_CLASSPATH, "consumer.jar");
            badValues();
        } finally {
            if (before == null) {
                System.clearProperty(KerberosSoakMain.CONSUMER_CLASSPATH);
            } else {
                System.setProperty(KerberosSoakMain.CONSUMER_CLASSPATH, before);
            }
        }
    }

    private static void badValues() {
        Run unknown = run("--colour");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().startsWith("bin/kerberos-soak: Unknown option: '--colour'"), unknown.err());
        Run lifetimes = run("--lifetimes", "0");
        assertEquals(2, lifetimes.status());
        assertTrue(lifetimes.err().startsWith("bin/kerberos-soak: --lifetimes must be at least 1, was 0"),
                lifetimes.err());
        Run seconds = run("--ticket-seconds", "5");
        assertEquals(2, seconds.status());
        assertTrue(seconds.err().startsWith("bin/kerberos-soak: --ticket-seconds must be 10 to 600, was 5"),
                seconds.err());
    }
}
