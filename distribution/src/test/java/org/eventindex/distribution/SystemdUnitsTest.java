package org.eventindex.distribution;

import org.eventindex.testing.Prerequisites;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The systemd units of the distribution (src/dist/systemd): each has the directives an operator relies on (user,
 * working folder, restart on failure, a clean SIGTERM stop counted as success, hardening, writable state and log
 * folders, open-file limit), and, where systemd-analyze is installed, verifies without a warning once its
 * /opt/eventindex paths point at a stand-in launcher.
 */
final class SystemdUnitsTest {
    private static final Path UNITS = Path.of("src/dist/systemd");
    private static final Map<String, String> STATE = Map.of(
            "eventindex-supervisor.service", "/var/lib/eventindex/supervisor",
            "eventindex-consumer.service", "/var/lib/eventindex/consumer",
            "eventindex-lookup.service", "/var/lib/eventindex/lookup");

    @TempDir
    Path temp;

    @Test
    void everyUnitHasTheRequiredDirectives() throws IOException {
        for (Map.Entry<String, String> unit : STATE.entrySet()) {
            List<String> lines = Files.readAllLines(UNITS.resolve(unit.getKey()));
            for (String directive : List.of("User=eventindex", "WorkingDirectory=" + unit.getValue(),
                    "Restart=on-failure", "KillSignal=SIGTERM", "SuccessExitStatus=0 143", "NoNewPrivileges=yes",
                    "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                    "ReadWritePaths=" + unit.getValue() + " /var/log/eventindex", "LimitNOFILE=65536",
                    "Environment=EVENTINDEX_CONF_DIR=/etc/eventindex", "RestartPreventExitStatus=2")) {
                assertTrue(lines.contains(directive), unit.getKey() + " lacks " + directive);
            }
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("ExecStart=/opt/eventindex/bin/eventindex ")),
                    unit.getKey() + " does not start bin/eventindex");
        }
    }

    /** The broker watchdog runs as the broker's user (to signal it), restarts on failure, and is hardened. */
    @Test
    void theBrokerWatchdogUnitRunsAsTheBrokersUserAndIsHardened() throws IOException {
        String unit = "eventindex-broker-watchdog.service";
        String text = Files.readString(UNITS.resolve(unit));
        for (String directive : List.of("User=activemq", "Restart=on-failure", "KillSignal=SIGTERM",
                "SuccessExitStatus=0 143", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
                "PrivateTmp=yes", "ReadWritePaths=/var/log/eventindex", "RestartPreventExitStatus=2",
                "Environment=EVENTINDEX_CONF_DIR=/etc/eventindex")) {
            assertTrue(text.lines().anyMatch(directive::equals), unit + " lacks " + directive);
        }
        for (String option : List.of("ExecStart=/opt/eventindex/bin/eventindex broker-watchdog --broker 127.0.0.1:",
                "--pid-file ", "--user ", "--password-file ")) {
            assertTrue(text.contains(option), unit + " lacks " + option);
        }
    }

    @Test
    void systemdAnalyzeVerifiesEveryUnitWithoutAWarning() throws IOException, InterruptedException {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        // Outside CI a machine without systemd skips this one (the directives are checked above); under CI it fails.
        Prerequisites.require(Files.isExecutable(analyze),
                "no " + analyze + " on this machine (Debian: apt-get install systemd)");
        Path home = temp.resolve("eventindex");
        Path launcher = Files.createDirectories(home.resolve("bin")).resolve("eventindex");
        Files.writeString(launcher, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> units = new ArrayList<>(STATE.keySet());
        units.add("eventindex-broker-watchdog.service");
        for (String unit : units) {
            Path copy = temp.resolve(unit);
            Files.writeString(copy, Files.readString(UNITS.resolve(unit)).replace("/opt/eventindex", home.toString()));
            List<String> cmd = new ArrayList<>(List.of(analyze.toString(), "verify", copy.toString()));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(1, TimeUnit.MINUTES), "systemd-analyze verify " + unit + " did not finish");
            assertEquals(0, p.exitValue(), "systemd-analyze verify " + unit + ": " + out);
            assertEquals("", out.strip(), "systemd-analyze verify " + unit + " warns");
        }
    }
}
