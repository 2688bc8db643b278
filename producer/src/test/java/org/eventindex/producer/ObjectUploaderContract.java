package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.eventindex.spb.SpbLimits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What the producer needs from an object store, run against every backend (the light S3 server used in most tests,
 * and the real Ceph RADOS Gateway of production): single PUT streamed from a file, never overwriting, user metadata,
 * multipart upload, the ETag the producer verifies, and the checksum settings of the client.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ObjectUploaderContract {
    /** Small parts so that a 12 MiB file needs three (the S3 minimum part size is 5 MiB). */
    static final UploadSettings SMALL_PARTS = new UploadSettings(UploadSettings.MIN_PART_SIZE,
            UploadSettings.MIN_PART_SIZE);
    static final String ACCESS_KEY = "contract-ak";
    static final String SECRET_KEY = "contract-sk";

    @TempDir
    Path dir;
    String bucket;

    abstract void startBackend(Path dir) throws Exception;

    abstract void stopBackend();

    abstract URI endpoint();

    abstract void createBucket(String bucket);

    abstract List<String> keys(String bucket);

    abstract Map<String, String> userMetadata(String bucket, String key);

    abstract InputStream open(String bucket, String key) throws IOException;

    /** Whether the backend accepts requests made with the SDK's default checksum settings (WHEN_SUPPORTED). */
    abstract boolean acceptsSdkDefaultChecksums();

    @BeforeAll
    void start(@TempDir Path backendDir) throws Exception {
        startBackend(backendDir);
    }

    @AfterAll
    void stop() {
        stopBackend();
    }

    @BeforeEach
    void bucket(TestInfo test) {
        String name = test.getTestMethod().orElseThrow().getName().toLowerCase(java.util.Locale.ROOT);
        bucket = "c-" + name.substring(0, Math.min(40, name.length()));
        createBucket(bucket);
    }

    S3ObjectUploader store(String secretKey) {
        return new S3ObjectUploader(endpoint(), ACCESS_KEY, secretKey, Duration.ofSeconds(5), Duration.ofSeconds(60),
                SMALL_PARTS);
    }

    @Test
    void singlePutStoresBytesMetadataAndMd5Etag() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 50);
        ScannedFile scanned = ScannedFile.scan(file, SpbLimits.DEFAULT, SMALL_PARTS);
        Map<String, String> metadata = Map.of("sha256", scanned.sha256(), "taskID", "12345678.G", "nevents", "100");
        try (S3ObjectUploader store = store(SECRET_KEY)) {
            firstPut(store, "panda/1/a.ei.spb", file, metadata);
            ObjectUploader.StoredObject head = store.head(bucket, "panda/1/a.ei.spb");
            assertEquals(Files.size(file), head.size());
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(Files.readAllBytes(file))),
                    head.etag());
            assertEquals(scanned.digests().etagOf(file, SMALL_PARTS), head.etag());
            assertEquals(scanned.sha256(), head.userMetadata().get("sha256"));
            assertEquals("12345678.G", head.userMetadata().get("taskid"));
        }
        assertEquals(List.of("panda/1/a.ei.spb"), keys(bucket));
        assertEquals("100", userMetadata(bucket, "panda/1/a.ei.spb").get("nevents"));
        assertEquals(scanned.sha256(), sha256(bucket, "panda/1/a.ei.spb"));
    }

    @Test
    void existingKeyIsNeverOverwritten() throws Exception {
        Path first = TestSpbFiles.write(dir.resolve("first.ei.spb"), "12345678.G", "1.1", 5);
        Path second = TestSpbFiles.write(dir.resolve("second.ei.spb"), "12345678.G", "1.1", 9);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(first)));
        try (S3ObjectUploader store = store(SECRET_KEY)) {
            firstPut(store, "k.ei.spb", first, Map.of("sha256", sha));
            assertFalse(store.putIfAbsent(bucket, "k.ei.spb", second, Map.of("sha256", "other")));
        }
        assertEquals(sha, sha256(bucket, "k.ei.spb"));
        assertEquals(sha, userMetadata(bucket, "k.ei.spb").get("sha256"));
    }

    @Test
    void multipartUploadStreamsPartsWithMetadataAndMultipartEtag() throws Exception {
        Path file = randomFile(dir.resolve("big.bin"), 12L << 20);
        ContentDigests digests = new ContentDigests(SMALL_PARTS, Files.size(file));
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                digests.update(buf, 0, n);
            }
        }
        ContentDigests.Result result = digests.finish();
        assertTrue(SMALL_PARTS.multipart(Files.size(file)));
        assertEquals(3, SMALL_PARTS.parts(Files.size(file)));
        try (S3ObjectUploader store = store(SECRET_KEY)) {
            assertTrue(store.putIfAbsent(bucket, "tier0/2/big.ei.spb", file, Map.of("sha256", result.sha256(),
                    "nevents", "7")));
            ObjectUploader.StoredObject head = store.head(bucket, "tier0/2/big.ei.spb");
            assertEquals(12L << 20, head.size());
            assertTrue(head.etag().endsWith("-3"), head.etag());
            assertEquals(result.etagOf(file, SMALL_PARTS), head.etag());
            assertEquals(result.sha256(), head.userMetadata().get("sha256"));
        }
        assertEquals("7", userMetadata(bucket, "tier0/2/big.ei.spb").get("nevents"));
        assertEquals(result.sha256(), sha256(bucket, "tier0/2/big.ei.spb"));
    }

    @Test
    void multipartUploadToAnExistingKeyLeavesItUnchanged() throws Exception {
        Path small = TestSpbFiles.write(dir.resolve("small.ei.spb"), "12345678.G", "1.1", 5);
        Path big = randomFile(dir.resolve("big.bin"), 11L << 20);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(small)));
        try (S3ObjectUploader store = store(SECRET_KEY)) {
            firstPut(store, "k.ei.spb", small, Map.of("sha256", sha));
            assertFalse(store.putIfAbsent(bucket, "k.ei.spb", big, Map.of("sha256", "other")));
        }
        assertEquals(sha, sha256(bucket, "k.ei.spb"));
        assertEquals(List.of("k.ei.spb"), keys(bucket));
    }

    @Test
    void wrongSecretIsAConfigurationErrorAfterOneRequest() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 1);
        AtomicInteger attempts = new AtomicInteger();
        try (S3ObjectUploader store = store("not-the-secret")) {
            ProducerException e = assertThrows(ProducerException.class, () -> RetryPolicy.DEFAULT.start().run("put",
                    () -> {
                        attempts.incrementAndGet();
                        return store.putIfAbsent(bucket, "k.ei.spb", file, Map.of());
                    }));
            assertEquals(ExitCode.CONFIGURATION, e.exitCode(), e.getMessage());
            assertTrue(e.getMessage().contains("403"), e.getMessage());
            assertFalse(e.getMessage().contains("not-the-secret"), e.getMessage());
        }
        assertEquals(1, attempts.get());
        assertEquals(List.of(), keys(bucket));
    }

    /**
     * A server may refuse a wrongly signed PUT before reading its body and hang up; the client then sees a broken
     * write, not the 403. The store's HEAD diagnosis must still make it a configuration error on the first attempt.
     */
    @Test
    void wrongSecretWithALargeBodyIsStillAConfigurationError() throws Exception {
        Path file = randomFile(dir.resolve("six.bin"), 6L << 20);
        AtomicInteger attempts = new AtomicInteger();
        try (S3ObjectUploader store = new S3ObjectUploader(endpoint(), ACCESS_KEY, "not-the-secret", Duration.ofSeconds(5),
                Duration.ofSeconds(60), new UploadSettings(8L << 20, 64L << 20))) {
            ProducerException e = assertThrows(ProducerException.class, () -> RetryPolicy.DEFAULT.start().run("put",
                    () -> {
                        attempts.incrementAndGet();
                        return store.putIfAbsent(bucket, "k.ei.spb", file, Map.of());
                    }));
            assertEquals(ExitCode.CONFIGURATION, e.exitCode(), e.getMessage());
            assertTrue(e.getMessage().contains("403"), e.getMessage());
        }
        assertEquals(1, attempts.get());
        assertEquals(List.of(), keys(bucket));
    }

    @Test
    void missingBucketIsAConfigurationError() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 1);
        try (S3ObjectUploader store = store(SECRET_KEY)) {
            ProducerException e = assertThrows(ProducerException.class,
                    () -> store.putIfAbsent("no-such-bucket-here", "k.ei.spb", file, Map.of()));
            assertEquals(ExitCode.CONFIGURATION, e.exitCode(), e.getMessage());
            // NoSuchBucket from the PUT, or from the HEAD diagnosis when the server hung up during the body.
            assertTrue(e.getMessage().contains("NoSuchBucket") || e.getMessage().contains("does not exist"),
                    e.getMessage());
        }
    }

    /**
     * Our settings (checksums only when required) work on every backend; the SDK's defaults (WHEN_SUPPORTED, a
     * CRC32 trailer in aws-chunked encoding) work or not depending on the backend, which is why they are not used.
     */
    @Test
    void checksumSettings() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 3);
        try (S3ObjectUploader store = store(SECRET_KEY)) {
            firstPut(store, "ours.ei.spb", file, Map.of());
        }
        try (S3Client defaults = S3Client.builder().endpointOverride(endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY,
                        SECRET_KEY))).build()) {
            boolean accepted;
            try {
                defaults.putObject(b -> b.bucket(bucket).key("defaults.ei.spb"), RequestBody.fromFile(file));
                accepted = true;
            } catch (S3Exception e) {
                accepted = false;
            }
            assertEquals(acceptsSdkDefaultChecksums(), accepted, "PUT with the SDK's default checksum settings");
        }
    }

    /**
     * Uploads to a key that does not exist yet. True is the usual answer; false is allowed only because the JDK HTTP
     * client may resend a request whose connection failed after the server took it (the resend then meets our own
     * object: 412). Either way the bytes must be ours, which every caller checks.
     */
    private void firstPut(S3ObjectUploader store, String key, Path file, Map<String, String> metadata)
            throws ProducerException {
        assertFalse(keys(bucket).contains(key), key + " exists before its first upload");
        store.putIfAbsent(bucket, key, file, metadata);
        assertTrue(keys(bucket).contains(key), key + " missing after its first upload");
    }

    private String sha256(String bucket, String key) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = new DigestInputStream(open(bucket, key), md)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static Path randomFile(Path file, long size) throws IOException {
        SplittableRandom random = new SplittableRandom(size);
        byte[] buf = new byte[1 << 16];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long left = size; left > 0; left -= buf.length) {
                for (int i = 0; i < buf.length; i += 8) {
                    long v = random.nextLong();
                    for (int j = 0; j < 8; j++) {
                        buf[i + j] = (byte) (v >>> (8 * j));
                    }
                }
                out.write(buf, 0, (int) Math.min(buf.length, left));
            }
        }
        return file;
    }
}
