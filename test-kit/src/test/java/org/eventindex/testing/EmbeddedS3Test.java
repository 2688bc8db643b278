package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

class EmbeddedS3Test {

    @TempDir
    Path dir;

    @Test
    void servesSignedRequestsAndCountsGets() {
        try (EmbeddedS3 s3 = EmbeddedS3.start(dir, "AKTEST", "secret-test");
             S3Client client = client(s3, s3.accessKey(), s3.secretKey())) {
            client.createBucket(b -> b.bucket("bkt"));
            byte[] body = "payload".getBytes(StandardCharsets.UTF_8);
            client.putObject(b -> b.bucket("bkt").key("a/b.ei.spb").metadata(Map.of("taskid", "1.G")),
                    RequestBody.fromBytes(body));
            client.putObject(b -> b.bucket("bkt").key("other"), RequestBody.fromBytes(body));
            client.headObject(b -> b.bucket("bkt").key("a/b.ei.spb"));
            assertEquals(0, s3.totalGets());

            assertArrayEquals(body, client.getObjectAsBytes(b -> b.bucket("bkt").key("a/b.ei.spb")).asByteArray());
            assertArrayEquals(body, client.getObjectAsBytes(b -> b.bucket("bkt").key("a/b.ei.spb")).asByteArray());
            assertEquals(2, s3.getCount("bkt", "a/b.ei.spb"));
            assertEquals(0, s3.getCount("bkt", "other"));
            assertEquals(2, s3.totalGets());

            assertEquals(List.of("a/b.ei.spb", "other"), s3.keys("bkt"));
            assertEquals("1.G", s3.userMetadata("bkt", "a/b.ei.spb").orElseThrow().get("taskid"));
            assertArrayEquals(body, s3.read("bkt", "a/b.ei.spb"));
            assertEquals(2, s3.totalGets());
        }
    }

    @Test
    void rejectsWrongSecret() {
        try (EmbeddedS3 s3 = EmbeddedS3.start(dir, "AKTEST", "secret-test");
             S3Client client = client(s3, s3.accessKey(), "wrong")) {
            S3Exception e = assertThrows(S3Exception.class, () -> client.listBuckets());
            assertEquals(403, e.statusCode());
        }
    }

    private static S3Client client(EmbeddedS3 s3, String access, String secret) {
        return S3Client.builder()
                .endpointOverride(s3.endpoint())
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(access, secret)))
                .build();
    }
}
