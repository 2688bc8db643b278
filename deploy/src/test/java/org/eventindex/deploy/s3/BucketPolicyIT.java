package org.eventindex.deploy.s3;

import org.eventindex.testing.EmbeddedCeph;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped bucket policy ({@code deploy/s3/bucket-policy.json}, docs/install.md step 5) on a real Ceph RGW: each
 * role's user can make exactly the S3 calls its code makes ({@code S3ObjectUploader}: PUT with
 * {@code If-None-Match: *}, HEAD of the key and of the bucket; {@code S3ObjectFetcher}: GET; {@code S3CleanupStore}:
 * LIST and multi-object DELETE; the producer's abort of a multipart upload, which {@code eventindex check producer}
 * tries too), and is refused what another role does.
 */
class BucketPolicyIT {
    private static final String BUCKET = "eventindex";
    private static final String KEY = "panda/19548985/19548985.G_3431483303.1_1cd9f48178b64e90b5d34a855e87012c.ei.spb";
    private static final String MISSING = "panda/19548985/19548985.G_3431483303.2_0000f48178b64e90b5d34a855e87012c.ei.spb";

    @TempDir
    static Path dir;
    private static EmbeddedCeph ceph;
    private static S3Client producer;
    private static S3Client consumer;
    private static S3Client supervisor;

    @BeforeAll
    static void start() throws IOException {
        EmbeddedCeph.requireInstalled();
        ceph = EmbeddedCeph.start(dir.resolve("ceph"), "eventindex-admin-key", "eventindex-admin-secret");
        ceph.createBucket(BUCKET);
        producer = user("eventindex-producer");
        consumer = user("eventindex-consumer");
        supervisor = user("eventindex-supervisor");
        Path policy = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("s3/bucket-policy.json");
        ceph.putBucketPolicy(BUCKET, Files.readString(policy, StandardCharsets.UTF_8));
    }

    private static S3Client user(String uid) {
        ceph.createUser(uid, uid + "-key", uid + "-secret");
        return ceph.client(uid + "-key", uid + "-secret");
    }

    @AfterAll
    static void stop() {
        for (S3Client c : new S3Client[]{producer, consumer, supervisor}) {
            if (c != null) {
                c.close();
            }
        }
        if (ceph != null) {
            ceph.close();
        }
    }

    @Test
    void eachRoleMakesItsOwnCallsAndNoOther() {
        // the producer: a new object, never over an existing one, then HEADs as S3ObjectUploader does
        producer.putObject(b -> b.bucket(BUCKET).key(KEY).ifNoneMatch("*"), RequestBody.fromString("spb"));
        assertEquals(3L, producer.headObject(b -> b.bucket(BUCKET).key(KEY)).contentLength());
        assertEquals(404, status(() -> producer.headObject(b -> b.bucket(BUCKET).key(MISSING))),
                "a missing key must be a 404 for the producer (s3:ListBucket), not a 403");
        producer.headBucket(b -> b.bucket(BUCKET));
        assertEquals(412, status(() -> producer.putObject(b -> b.bucket(BUCKET).key(KEY).ifNoneMatch("*"),
                RequestBody.fromString("again"))), "an existing key is never overwritten");
        assertEquals(403, status(() -> producer.putObject(b -> b.bucket(BUCKET).key("other/x.ei.spb"),
                RequestBody.fromString("x"))), "only the producers' key prefixes");
        assertEquals(403, status(() -> producer.deleteObject(b -> b.bucket(BUCKET).key(KEY))));

        // the consumer reads, and nothing else
        assertEquals("spb", consumer.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asUtf8String());
        assertEquals(404, status(() -> consumer.getObjectAsBytes(b -> b.bucket(BUCKET).key(MISSING))),
                "a missing object must be a 404 for the consumer (its permanent input failure)");
        assertEquals(403, status(() -> consumer.putObject(b -> b.bucket(BUCKET).key("panda/1/y.ei.spb"),
                RequestBody.fromString("y"))));
        assertEquals(403, status(() -> consumer.deleteObject(b -> b.bucket(BUCKET).key(KEY))));

        // the supervisor's cleanup lists and deletes, and reads or writes nothing
        assertEquals(403, status(() -> supervisor.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY))));
        assertEquals(403, status(() -> supervisor.putObject(b -> b.bucket(BUCKET).key("panda/1/z.ei.spb"),
                RequestBody.fromString("z"))));
        List<String> listed = supervisor.listObjectsV2Paginator(b -> b.bucket(BUCKET)).contents().stream()
                .map(S3Object::key).toList();
        assertEquals(List.of(KEY), listed);
        var deleted = supervisor.deleteObjects(b -> b.bucket(BUCKET).delete(Delete.builder()
                .objects(ObjectIdentifier.builder().key(KEY).build()).quiet(true).build()));
        assertTrue(deleted.errors().isEmpty(), "multi-object delete: " + deleted.errors());
        assertEquals(List.of(), ceph.keys(BUCKET));
    }

    /**
     * A multipart upload created and aborted under a producer prefix: what the producer does when a part fails
     * ({@code S3ObjectUploader}) and what {@code eventindex check producer} tries; the consumer may do neither.
     */
    @Test
    void theProducerAbortsTheMultipartUploadItStartsAndTheConsumerCannotStartOne() {
        String key = "panda/4242/eventindex-check-probe";
        String aborted = producer.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
        producer.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(aborted));
        assertEquals(404, status(() -> producer.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(aborted)
                .partNumber(1), RequestBody.fromString("part"))), "the aborted upload must be gone (NoSuchUpload)");
        assertEquals(403, status(() -> producer.createMultipartUpload(b -> b.bucket(BUCKET).key("other/x.ei.spb"))),
                "only the producers' key prefixes");

        assertEquals(403, status(() -> consumer.createMultipartUpload(b -> b.bucket(BUCKET).key(key))));
        String open = producer.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
        assertEquals(403, status(() -> consumer.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(open))));
        producer.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(open));
        try (S3Client owner = ceph.client(ceph.accessKey(), ceph.secretKey())) {
            assertEquals(List.of(), owner.listMultipartUploads(b -> b.bucket(BUCKET).prefix("panda/4242/")).uploads(),
                    "no upload left under the probe's prefix");
        }
    }

    /** The HTTP status S3 refused {@code call} with. */
    private static int status(Runnable call) {
        return assertThrows(S3Exception.class, call::run).statusCode();
    }
}
