package org.eventindex.config;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigKeyTest {
    @Test
    void aNameThatLooksLikeASecretMustBeMarked() {
        for (String name : List.of("x.stomp.password.file", "x.s3.secret.key.file", "x.kerberos.keytab",
                "x.http.keystore", "x.stomp.truststore", "x.rucio.credentials", "x.api.token", "x.tls.private.key")) {
            ConfigKey plain = new ConfigKey(name, "", null, "doc");
            assertTrue(plain.unmarkedSecret(), name);
            assertFalse(plain.secretPath().unmarkedSecret(), name);
            assertFalse(plain.secret().unmarkedSecret(), name);
        }
        for (String name : List.of("x.brokers", "x.kerberos.principal", "x.s3.access.key", "x.ha.lease",
                "x.stomp.user")) {
            assertFalse(new ConfigKey(name, "", null, "doc").unmarkedSecret(), name);
        }
    }

    @Test
    void onlyWhetherASecretOrItsPathIsSetIsShown() {
        Properties p = new Properties();
        p.setProperty("x.stomp.password.file", "/etc/ei/stomp.password");
        p.setProperty("x.brokers", "mq:61613");
        List<ConfigKey> keys = List.of(new ConfigKey("x.brokers", "localhost:61613", null, "brokers"),
                new ConfigKey("x.stomp.password.file", "", "EI_PW", "file").secretPath(),
                new ConfigKey("x.s3.secret.key.file", "", "EI_SK", "file").secretPath(),
                new ConfigKey("x.kerberos.keytab", "", null, "keytab").secretPath());
        Map<String, String> shown = new ConfigReader("x.", keys, p, Map.of("EI_SK", "from-env")).shown();
        assertEquals(Map.of("x.brokers", "mq:61613", "x.stomp.password.file", "(set)",
                "x.s3.secret.key.file", "(set)", "x.kerberos.keytab", "(not set)"), shown);
        assertEquals(List.of("x.brokers", "x.kerberos.keytab", "x.s3.secret.key.file", "x.stomp.password.file"),
                List.copyOf(shown.keySet()), "sorted by key");
    }
}
