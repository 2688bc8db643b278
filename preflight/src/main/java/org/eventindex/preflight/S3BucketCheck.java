package org.eventindex.preflight;

import org.eventindex.s3.S3Clients;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import javax.net.ssl.TrustManager;
import java.io.IOException;
import java.net.URI;
import java.util.Objects;
import java.util.UUID;

/**
 * What a role may do in its S3 bucket, tried with its keys on a probe key that does not exist, so that no object is
 * written: a consumer reads (a GET: "no such key" is the answer of a user that may read, "access denied" the answer of
 * one that may not); the supervisor's cleanup lists and deletes (a LIST, then a DELETE); a producer writes (a multipart upload created and
 * aborted at once: the right to put an object, and to abort the upload the producer aborts when a part fails).
 */
final class S3BucketCheck {
    static final String PROBE_PREFIX = "eventindex-check/";

    /** What the role does in the bucket. */
    enum Access {
        READ("GET"), DELETE("DELETE"), WRITE("CreateMultipartUpload");

        private final String operation;

        Access(String operation) {
            this.operation = operation;
        }
    }

    private S3BucketCheck() {
    }

    /**
     * @param credentials the role's ({@link org.eventindex.s3.RotatingCredentials})
     * @throws IOException naming the bucket, the operation and S3's answer (its error code)
     */
    static void probe(URI endpoint, String region, String bucket, AwsCredentialsProvider credentials,
                      TrustManager[] trust, Access access) throws IOException {
        probe(endpoint, region, bucket, credentials, trust, access, PROBE_PREFIX + UUID.randomUUID());
    }

    /**
     * As {@link #probe(URI, String, String, AwsCredentialsProvider, TrustManager[], Access)}, on {@code key}: a key under the
     * prefix the role is allowed (a bucket policy may grant a producer its key prefixes only).
     */
    static void probe(URI endpoint, String region, String bucket, AwsCredentialsProvider credentials,
                      TrustManager[] trust, Access access, String key) throws IOException {
        Objects.requireNonNull(endpoint, "endpoint is null");
        Objects.requireNonNull(bucket, "bucket is null");
        try (S3Client s3 = S3Clients.create(endpoint, region, credentials, S3Clients.urlConnection(trust, null, null),
                true)) {
            switch (access) {
                case READ -> s3.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toBytes());
                case DELETE -> {
                    // the cleanup lists the bucket before it deletes; a DELETE alone passes on a missing bucket with
                    // some S3 servers (S3Proxy answers 204)
                    list(s3, bucket);
                    s3.deleteObject(b -> b.bucket(bucket).key(key));
                }
                case WRITE -> createAndAbort(s3, bucket, key);
            }
        } catch (NoSuchKeyException e) {
            // READ: the user may read, the probe key simply does not exist
        } catch (SdkException e) {
            throw refused(access.operation, bucket, key, e, "");
        }
    }

    /** One key at most, under the probe prefix: the right to list the bucket, and the bucket there. */
    private static void list(S3Client s3, String bucket) throws IOException {
        try {
            s3.listObjectsV2(b -> b.bucket(bucket).prefix(PROBE_PREFIX).maxKeys(1));
        } catch (SdkException e) {
            throw refused("LIST", bucket, PROBE_PREFIX, e, "");
        }
    }

    /** An upload with no part is no object: created and aborted, it leaves nothing in the bucket. */
    private static void createAndAbort(S3Client s3, String bucket, String key) throws IOException {
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
        try {
            s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            throw refused("AbortMultipartUpload", bucket, key, e, "; the empty upload " + uploadId + " stays until"
                    + " the bucket's lifecycle rule aborts incomplete uploads");
        }
    }

    private static IOException refused(String operation, String bucket, String key, SdkException e, String left) {
        String of = " of " + key + " in bucket " + bucket;
        if (e instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
            return new IOException("S3 refused the " + operation + of + ": HTTP " + s3.statusCode() + " "
                    + s3.awsErrorDetails().errorCode() + left, e);
        }
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst()
                .orElse("");
        return new IOException("S3 " + operation + of + " failed: " + m + left, e);
    }
}
