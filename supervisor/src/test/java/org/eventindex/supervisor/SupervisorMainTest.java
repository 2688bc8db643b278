package org.eventindex.supervisor;

import java.util.List;
import org.eventindex.testing.CommandTreeWalk;
import org.eventindex.testing.ConfigKeysFileCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The daemon's command line; the operators' commands are tested in the operator module (OperatorMainTest). */
class SupervisorMainTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SupervisorMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void usageErrorsExitWith2() {
        assertEquals(2, run());
        assertEquals(2, run("frobnicate"));
        assertTrue(err().contains("eventindex supervisor: Unmatched argument at index 0: 'frobnicate'"), err());
        assertEquals(2, run("run"));
        assertTrue(err().contains("run: Missing required option: '--config=FILE'"), err());
    }

    /** Every command its help lists, as typed: help, version, an unknown option and stray arguments. */
    @Test
    void everyListedCommandHasHelpAndVersionAndRefusesUnknownOptionsAndStrayArguments() {
        List<List<String>> visited = CommandTreeWalk.check("eventindex supervisor",
                args -> CommandTreeWalk.capture((o, e) -> SupervisorMain.run(args, o, e, Map.of())));
        assertTrue(visited.containsAll(List.of(List.of(),
                List.of("run"),
                List.of("config-keys"))), visited.toString());
    }

    @Test
    void configKeysPrintsAPropertiesFileOfEveryKeyWithItsDefaultThatTheSupervisorReads() throws IOException {
        assertEquals(0, run("config-keys"), err());
        java.util.Properties loaded = ConfigKeysFileCheck.assertValid(out.toString(StandardCharsets.UTF_8),
                SupervisorConfig.KEYS.stream().map(k -> new ConfigKeysFileCheck.Key(k.name(), k.defaultValue(), k.envVar(),
                        k.doc())).toList());
        assertEquals(SupervisorConfig.fromProperties(new java.util.Properties(), Map.of()),
                SupervisorConfig.fromProperties(loaded, Map.of()));
    }

    @Test
    void unreadableConfigurationIsNamed() throws IOException {
        Path cfg = dir.resolve("supervisor.properties");
        Files.writeString(cfg, "supervisor.kudu.epoch = minus one\n");
        assertEquals(2, run("run", "--config", cfg.toString()));
        assertTrue(err().contains("bad configuration") && err().contains("supervisor.kudu.epoch")
                && err().contains(cfg.toString()), err());
    }

    /** A file that cannot be read is named with the reason, not only its path (which is all the JDK's message has). */
    @Test
    void unreadableFilesAreNamedWithTheReason() {
        Path missing = dir.resolve("nope.properties");
        assertEquals(2, run("run", "--config", missing.toString()));
        assertTrue(err().contains("cannot read supervisor configuration " + missing + ": no such file or directory"),
                err());
    }

    /** A secret file others can read is refused naming the configuration key that pointed at it. */
    @Test
    void anOpenSecretFileIsRefusedNamingItsOptionOrKey() throws IOException {
        Path secret = org.eventindex.config.SecretFile.write(dir.resolve("pw"), "s");
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        for (String key : List.of(SupervisorConfig.STOMP_PASSWORD_FILE, SupervisorConfig.S3_SECRET_KEY_FILE,
                SupervisorConfig.CATALOGUE_PASSWORD_FILE)) {
            Path config = Files.writeString(dir.resolve("s.properties"), key + " = " + secret + "\n"
                    + SupervisorConfig.JOURNAL_DIR + " = " + dir.resolve("journal") + "\n");
            assertEquals(2, run("run", "--config", config.toString()));
            assertTrue(err().contains(key + ": secret file " + secret + " has mode rw-r--r--"), err());
            err.reset();
        }
    }

}
