package org.eventindex.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
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
}
