package org.eventindex.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

final class ConfigReaderTest {
    private static final List<ConfigKey> KEYS = List.of(
            new ConfigKey("d.name", "fallback", null, "a text"),
            new ConfigKey("d.count", "4", null, "a number"),
            new ConfigKey("d.wait", "30s", null, "a duration"),
            new ConfigKey("d.url", "http://localhost:7480", null, "a URI"),
            new ConfigKey("d.access", "", "D_ACCESS", "an id, or the environment"),
            new ConfigKey("d.secret.file", "", "D_SECRET", "a secret file, or the environment"));

    private static ConfigReader reader(Map<String, String> props, Map<String, String> env) {
        return new ConfigReader("d.", KEYS, props(props), env);
    }

    @Test
    void unsetKeysTakeTheTableDefaults() {
        ConfigReader r = reader(Map.of(), Map.of());
        assertEquals("fallback", r.text("d.name"));
        assertEquals(4, r.integer("d.count"));
        assertEquals(Duration.ofSeconds(30), r.duration("d.wait"));
        assertEquals(URI.create("http://localhost:7480"), r.uri("d.url"));
        assertEquals(Optional.empty(), r.explicit("d.name"));
    }

    @Test
    void setKeysAreParsedAndTrimmed() {
        ConfigReader r = reader(Map.of("d.name", "  x ", "d.count", "12", "d.wait", "PT2M"), Map.of());
        assertEquals("x", r.text("d.name"));
        assertEquals(Optional.of("x"), r.explicit("d.name"));
        assertEquals(12, r.integer("d.count"));
        assertEquals(Duration.ofMinutes(2), r.duration("d.wait"));
    }

    @Test
    void everyKeyOutsideTheTableIsRefusedWithTheNearestKnownKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> reader(Map.of("d.cuont", "1"), Map.of()));
        assertEquals("unknown configuration key 'd.cuont' (did you mean 'd.count'?); every key of this file starts"
                + " with 'd.' and is listed by: eventindex d config-keys", e.getMessage());
        // a misspelt or capitalised prefix is a key no daemon knows, not a key of somebody else's to ignore
        assertTrue(assertThrows(IllegalArgumentException.class, () -> reader(Map.of("D.name", "x"), Map.of()))
                .getMessage().contains("unknown configuration key 'D.name' (did you mean 'd.name'?)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> reader(Map.of("dd.wait", "1s"), Map.of()))
                .getMessage().contains("unknown configuration key 'dd.wait' (did you mean 'd.wait'?)"));
        // nothing near enough: no suggestion
        String far = assertThrows(IllegalArgumentException.class,
                () -> reader(Map.of("other.key", "1"), Map.of())).getMessage();
        assertTrue(far.startsWith("unknown configuration key 'other.key'; every key"), far);
    }

    @Test
    void anotherDaemonsKeyIsNamedAsSuch() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ConfigReader(
                "supervisor.", List.of(new ConfigKey("supervisor.brokers", "", null, "brokers")),
                props(Map.of("consumer.spool.dir", "/var/spool")), Map.of()));
        assertEquals("'consumer.spool.dir' is a key of the consumer's configuration, not of the supervisor's; every"
                + " key of this file starts with 'supervisor.' and is listed by: eventindex supervisor config-keys",
                e.getMessage());
    }

    @Test
    void nearestIsTheSmallestEditDistanceIgnoringCase() {
        assertEquals(0, ConfigReader.distance("abc", "abc"));
        assertEquals(1, ConfigReader.distance("supervisr.brokers", "supervisor.brokers"));
        assertEquals(2, ConfigReader.distance("d.cuont", "d.count"));
        assertEquals(3, ConfigReader.distance("", "abc"));
        ConfigReader r = reader(Map.of(), Map.of());
        assertEquals(Optional.of("d.secret.file"), r.nearest("D.SECRET.FILES"));
        assertEquals(Optional.empty(), r.nearest("consumer.spool.dir"));
    }

    @Test
    void aFileErrorNamesTheFileAndTheLineOfTheFirstBadKey(@TempDir Path dir) throws IOException {
        Path f = Files.writeString(dir.resolve("d.properties"), "# comment\nd.name=x\nd.wiat=1s\nd.cuont=2\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ConfigReader("d.", KEYS, ConfigReader.load(f, "d"), Map.of()));
        assertTrue(e.getMessage().startsWith(f + ":3: unknown configuration key 'd.wiat' (did you mean 'd.wait'?)"),
                e.getMessage());
        assertTrue(ConfigReader.inFile(f, e) == e, "a located error is not named twice");
        assertEquals(f + ": bad", ConfigReader.inFile(f, new IllegalArgumentException("bad")).getMessage());
    }

    private static Properties props(Map<String, String> m) {
        Properties p = new Properties();
        p.putAll(m);
        return p;
    }

    @Test
    void badValuesNameTheKeyAndTheValue() {
        ConfigReader r = reader(Map.of("d.count", "four", "d.wait", "soon", "d.url", "no-scheme"), Map.of());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> r.integer("d.count")).getMessage()
                .contains("d.count 'four' is not a whole number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> r.duration("d.wait")).getMessage()
                .contains("d.wait 'soon' is not a duration"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> r.uri("d.url")).getMessage()
                .contains("d.url 'no-scheme' has no scheme"));
    }

    @Test
    void durationUnits() {
        assertEquals(Duration.ofMillis(500), ConfigReader.parseDuration("k", "500ms"));
        assertEquals(Duration.ofHours(168), ConfigReader.parseDuration("k", "168h"));
        assertEquals(Duration.ofMinutes(5), ConfigReader.parseDuration("k", "5m"));
        assertThrows(IllegalArgumentException.class, () -> ConfigReader.parseDuration("k", "5d"));
        assertThrows(IllegalArgumentException.class, () -> ConfigReader.parseDuration("k", ""));
    }

    @Test
    void secretsComeFromTheFileElseTheEnvironmentNeverFromProperties(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("secret");
        SecretFile.write(file, "s3cret\n");
        assertEquals("s3cret", reader(Map.of("d.secret.file", file.toString()), Map.of("D_SECRET", "env"))
                .secret("d.secret.file"));
        assertEquals("env", reader(Map.of(), Map.of("D_SECRET", " env ")).secret("d.secret.file"));
        assertNull(reader(Map.of(), Map.of()).secret("d.secret.file"));
        assertEquals("id", reader(Map.of(), Map.of("D_ACCESS", "id")).textOrEnv("d.access"));
        assertEquals("prop", reader(Map.of("d.access", "prop"), Map.of("D_ACCESS", "id")).textOrEnv("d.access"));
    }

    @Test
    void emptyOrMissingSecretFileIsAnErrorNamingTheKey(@TempDir Path dir) throws IOException {
        Path empty = dir.resolve("empty");
        SecretFile.write(empty, "  \n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> reader(Map.of("d.secret.file", empty.toString()), Map.of()).secret("d.secret.file"));
        assertTrue(e.getMessage().startsWith("d.secret.file: secret file"), e.getMessage());
        IOException io = assertThrows(IOException.class,
                () -> reader(Map.of("d.secret.file", dir.resolve("missing").toString()), Map.of())
                        .secret("d.secret.file"));
        assertTrue(io.getMessage().contains("cannot read secret file"), io.getMessage());
    }

    @Test
    void aKeyMissingFromTheTableIsAProgrammingError() {
        assertThrows(IllegalStateException.class, () -> reader(Map.of(), Map.of()).text("d.nothing"));
    }

    @Test
    void checksNameTheKey() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ConfigChecks.requireRange(0, 1, 256, "k.threads"))
                .getMessage().contains("k.threads must be in 1..256: 0"));
        assertThrows(IllegalArgumentException.class, () -> ConfigChecks.requireQueue("/topic/x", "k.queue"));
        assertThrows(IllegalArgumentException.class, () -> ConfigChecks.requirePositive(Duration.ZERO, "k.wait"));
        assertThrows(IllegalArgumentException.class, () -> ConfigChecks.requireText(" ", "k.name"));
    }
}
