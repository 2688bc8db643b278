package org.eventindex.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrustStoreTest {
    @TempDir
    Path dir;

    /** The key that named the store, the file and why: the JDK's own message would be the path alone. */
    @Test
    void aMissingStoreIsNamedWithItsKeyAndTheReason() {
        Path missing = dir.resolve("ca.p12");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TrustStore(missing, "pw").trustManagers("consumer.s3.truststore"));
        assertEquals("consumer.s3.truststore: cannot read trust store " + missing + ": no such file or directory",
                e.getMessage());
    }

    /**
     * A PKCS12 trust store opened without its password shows no certificate: refused at once, naming the file and
     * the missing password, rather than a handshake failing later on "trustAnchors parameter must be non-empty".
     */
    @Test
    void aStoreWithoutItsPasswordIsRefusedAsHoldingNoCertificate() {
        TestCertificates certs = TestCertificates.create(dir.resolve("certs"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TrustStore(certs.trustStore(), null).trustManagers("--trust-store"));
        assertEquals("--trust-store: trust store " + certs.trustStore() + " holds no certificate readable without a"
                + " password (a PKCS12 store hides its certificates without it): give the trust store's password",
                e.getMessage());
        assertTrue(new TrustStore(certs.trustStore(), certs.trustStorePassword()).trustManagers("x").length > 0);
    }
}
