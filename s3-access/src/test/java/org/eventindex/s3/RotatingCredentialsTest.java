package org.eventindex.s3;

import org.eventindex.config.Secret;
import org.eventindex.config.SecretFile;
import org.eventindex.testing.EmbeddedS3;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key rotation as a site runs it, on a real S3 server that holds several keys (S3Proxy, as an RGW user during a
 * rotation): a second key pair issued, the client's key files replaced, the old pair revoked. The one client made
 * by {@link S3Clients} keeps working throughout, signing with the new pair from the request after the files changed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RotatingCredentialsTest {
    private static final String BUCKET = "rotation";

    @TempDir
    static Path dir;
    private EmbeddedS3 s3;

    @BeforeAll
    void start() {
        s3 = EmbeddedS3.start(dir.resolve("s3"), "AK-OLD", "secret-old");
        s3.createBucket(BUCKET);
    }

    @AfterAll
    void stop() {
        s3.close();
    }

    private static void replace(Path file, String value) throws IOException {
        Path next = SecretFile.write(file.resolveSibling(file.getFileName() + ".new"), value);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void theClientFollowsAKeyRotationWithoutARestart() throws IOException {
        Path ak = SecretFile.write(dir.resolve("access-key"), "AK-OLD");
        Path sk = SecretFile.write(dir.resolve("secret-key"), "secret-old");
        try (S3Client client = S3Clients.create(s3.endpoint(), null,
                RotatingCredentials.of(Secret.fromFile(ak, "x.s3.access.key.file"),
                        Secret.fromFile(sk, "x.s3.secret.key.file")),
                S3Clients.urlConnection(null, null, null), false)) {
            client.putObject(b -> b.bucket(BUCKET).key("before"), RequestBody.fromString("1"));
            assertEquals(1, s3.requestsWith("AK-OLD"));

            s3.addKey("AK-NEW", "secret-new");
            replace(sk, "secret-new");
            replace(ak, "AK-NEW");
            client.putObject(b -> b.bucket(BUCKET).key("during"), RequestBody.fromString("2"));
            assertEquals(1, s3.requestsWith("AK-OLD"), "the old key is no longer used once the files changed");
            assertEquals(1, s3.requestsWith("AK-NEW"));

            s3.revokeKey("AK-OLD");
            client.putObject(b -> b.bucket(BUCKET).key("after"), RequestBody.fromString("3"));
            assertEquals("3", client.getObjectAsBytes(b -> b.bucket(BUCKET).key("after")).asUtf8String());
            assertEquals(3, s3.requestsWith("AK-NEW"));
        }
        // the revocation is real: a client still on the old pair is refused
        try (S3Client old = S3Clients.create(s3.endpoint(), null, RotatingCredentials.of("AK-OLD", "secret-old"),
                S3Clients.urlConnection(null, null, null), false)) {
            S3Exception e = assertThrows(S3Exception.class,
                    () -> old.getObjectAsBytes(b -> b.bucket(BUCKET).key("after")));
            assertEquals(403, e.statusCode());
            assertTrue(s3.keys(BUCKET).containsAll(java.util.List.of("before", "during", "after")));
        }
    }
}
