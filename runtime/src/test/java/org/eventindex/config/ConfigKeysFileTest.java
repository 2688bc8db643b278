package org.eventindex.config;

import org.eventindex.testing.ConfigKeysFileCheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConfigKeysFileTest {
    private static final List<ConfigKey> KEYS = List.of(
            new ConfigKey("d.brokers", "localhost:61613", null, "STOMP brokers, host:port[,host:port...]."),
            new ConfigKey("d.password.file", "", "EI_PASSWORD", "File holding the passcode."),
            new ConfigKey("d.id", "<the host name>", null, "Name of this daemon."),
            new ConfigKey("d.odd", " C:\\dir", null, "A value with a leading blank and a backslash, which"
                    + " java.util.Properties would otherwise drop and take as an escape; and a long explanation that"
                    + " has to be wrapped over more than one comment line to stay within the width."));

    private static String print(List<ConfigKey> keys) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ConfigKeysFile.print("A daemon's configuration.", keys, new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theOutputLoadsAsPropertiesWithEveryDefaultAndItsMeaning() {
        String text = print(KEYS);
        Properties loaded = ConfigKeysFileCheck.assertValid(text, KEYS.stream()
                .map(k -> new ConfigKeysFileCheck.Key(k.name(), k.defaultValue(), k.envVar(), k.doc())).toList());
        assertEquals(" C:\\dir", loaded.getProperty("d.odd"));
        assertEquals("", loaded.getProperty("d.id"));
        assertTrue(text.startsWith("# A daemon's configuration.\n"), text);
        assertTrue(text.contains("# Name of this daemon. Default (when empty): the host name.\nd.id =\n"), text);
        assertTrue(text.contains("Environment variable: EI_PASSWORD."), text);
    }

    @Test
    void aComputedDefaultIsOneInAngleBrackets() {
        assertTrue(KEYS.get(2).computed());
        assertTrue(!KEYS.get(0).computed() && !KEYS.get(1).computed());
    }
}
