package org.eventindex.producer;

import javax.net.ssl.TrustManager;
import static java.util.Objects.requireNonNull;

import org.eventindex.io.LimitedInputStream;
import org.eventindex.s3.RotatingCredentials;
import org.eventindex.s3.S3Clients;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link ObjectUploader} over the AWS SDK v2 with the settings Ceph RGW needs: path-style access, region us-east-1,
 * checksums only when required (otherwise Ceph answers 400 XAmzContentSHA256Mismatch). The SDK's own retries are
 * off: {@link RetryPolicy} decides. Request bodies are streamed from the file (large files as a multipart upload
 * whose parts are read from file ranges), so memory use does not grow with the file.
 */
public final class S3ObjectUploader implements ObjectUploader {
    private static final Logger LOG = LoggerFactory.getLogger(S3ObjectUploader.class);
    private static final String CONTENT_TYPE = "application/octet-stream";
    /**
     * Parts sent at once, each on its own connection: the URL-connection client reads a part's body into memory and
     * only then sends it, so with two one part is read while the other is on the wire (decision 0071). Each holds
     * one part in the heap: two 8 MiB parts fit the 64 MB a grid job gives the producer.
     */
    static final int PARTS_IN_FLIGHT = 2;

    private final S3Client client;
    private final URI endpoint;
    private final UploadSettings upload;

    /**
     * @param endpoint {@code http(s)://host:port} of the S3 service
     */
    public S3ObjectUploader(URI endpoint, String accessKey, String secretKey, Duration connectTimeout,
                         Duration socketTimeout, UploadSettings upload) {
        this(endpoint, accessKey, secretKey, connectTimeout, socketTimeout, upload, null);
    }

    /** @param trustManagers for an https endpoint signed by a private CA; null: the JVM's trust store */
    public S3ObjectUploader(URI endpoint, String accessKey, String secretKey, Duration connectTimeout,
                         Duration socketTimeout, UploadSettings upload, TrustManager[] trustManagers) {
        this.endpoint = requireNonNull(endpoint, "endpoint is null");
        this.upload = requireNonNull(upload, "upload is null");
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
        this.client = S3Clients.create(endpoint, S3Clients.DEFAULT_REGION,
                RotatingCredentials.of(accessKey, secretKey),
                S3Clients.urlConnection(trustManagers, requireNonNull(connectTimeout, "connectTimeout is null"),
                        requireNonNull(socketTimeout, "socketTimeout is null")), false);
    }

    @Override
    public UploadSettings uploadSettings() {
        return upload;
    }

    @Override
    public boolean putIfAbsent(String bucket, String key, Path file, Map<String, String> userMetadata)
            throws ProducerException {
        return putIfAbsent(bucket, key, file, userMetadata, RetryPolicy.NONE.start());
    }

    @Override
    public boolean putIfAbsent(String bucket, String key, Path file, Map<String, String> userMetadata,
                               RetryPolicy.Budget budget) throws ProducerException {
        requireNonNull(budget, "budget is null");
        requireNonNull(file, "file is null");
        requireNonNull(userMetadata, "userMetadata is null");
        long size;
        try {
            size = java.nio.file.Files.size(file);
        } catch (IOException e) {
            throw new ProducerException(ExitCode.BAD_INPUT, file + ": cannot read: "
                    + org.eventindex.io.FileReason.of(e), e);
        }
        return upload.multipart(size) ? putMultipart(bucket, key, file, size, userMetadata, budget)
                : putSingle(bucket, key, file, size, userMetadata);
    }

    private boolean putSingle(String bucket, String key, Path file, long size, Map<String, String> metadata)
            throws ProducerException {
        try {
            client.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*").contentType(CONTENT_TYPE)
                    .contentLength(size).metadata(metadata), RequestBody.fromContentProvider(
                            () -> range(file, 0, size), size, CONTENT_TYPE));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                return false;
            }
            throw classify("PUT", bucket, key, e);
        } catch (SdkException | UncheckedIOException e) {
            if (!(e instanceof UncheckedIOException) && existsAfterFailedPut(bucket, key)) {
                return false; // the PUT went through and only its response was lost; the caller verifies the bytes
            }
            throw classify("PUT", bucket, key, e);
        }
    }

    /**
     * Create, one UploadPart per file range ({@link #PARTS_IN_FLIGHT} at a time), then Complete with
     * {@code If-None-Match: *}. Any failure aborts the upload (so no parts are left behind) and is reported; the caller
     * retries the whole upload.
     *
     * <p>Ceph RGW (Pacific) ignores {@code If-None-Match} on Complete and would overwrite, so an existing key is
     * looked for first. The remaining window (another writer between that HEAD and Complete) cannot open for the
     * producer: keys carry a fresh uuid per run, so only an earlier attempt of the same run, with the same bytes,
     * can have written the key.
     */
    private boolean putMultipart(String bucket, String key, Path file, long size, Map<String, String> metadata,
                                 RetryPolicy.Budget budget) throws ProducerException {
        if (exists(bucket, key)) {
            return false;
        }
        String uploadId;
        try {
            uploadId = client.createMultipartUpload(b -> b.bucket(bucket).key(key).contentType(CONTENT_TYPE)
                    .metadata(metadata)).uploadId();
        } catch (SdkException e) {
            throw classify("CreateMultipartUpload", bucket, key, e);
        }
        int parts = upload.parts(size);
        String operation = "UploadPart";
        ExecutorService senders = Executors.newFixedThreadPool(Math.min(PARTS_IN_FLIGHT, parts), r -> {
            Thread t = new Thread(r, "upload of " + key);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<String>> sent = new ArrayList<>(parts);
            for (int i = 0; i < parts; i++) {
                int number = i + 1;
                long offset = i * upload.partSize();
                long length = Math.min(upload.partSize(), size - offset);
                // A failed part is sent again alone (same number, same bytes), within the run's deadline.
                sent.add(senders.submit(() -> budget.run("upload part " + number + " of " + parts + " of " + bucket
                        + "/" + key, () -> uploadPart(bucket, key, uploadId, number, file, offset, length))));
            }
            List<CompletedPart> done = new ArrayList<>(parts);
            for (int i = 0; i < parts; i++) {
                done.add(CompletedPart.builder().partNumber(i + 1).eTag(sentPart(sent.get(i), i + 1, bucket, key))
                        .build());
                LOG.debug("uploaded part {} of {} of {}/{}", i + 1, parts, bucket, key);
            }
            operation = "CompleteMultipartUpload";
            client.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId).ifNoneMatch("*")
                    .multipartUpload(m -> m.parts(done)));
            return true;
        } catch (S3Exception e) {
            stop(senders, bucket, key);
            abort(bucket, key, uploadId);
            if (e.statusCode() == 412) {
                return false;
            }
            throw classify(operation, bucket, key, e);
        } catch (SdkException | UncheckedIOException e) {
            stop(senders, bucket, key);
            abort(bucket, key, uploadId);
            throw classify(operation, bucket, key, e);
        } catch (ProducerException e) {
            stop(senders, bucket, key);
            abort(bucket, key, uploadId);
            throw e;
        } finally {
            stop(senders, bucket, key);
        }
    }

    /** The ETag of a part sent on a sender thread, or what failed it, as the sending thread threw it. */
    private static String sentPart(Future<String> part, int number, String bucket, String key)
            throws ProducerException {
        try {
            return part.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProducerException(ExitCode.TRANSIENT, "interrupted while uploading part " + number + " of "
                    + bucket + "/" + key, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ProducerException pe) {
                throw pe;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("part " + number + " of " + bucket + "/" + key + " failed: " + cause,
                    cause);
        }
    }

    /**
     * Cancels the parts not yet sent and waits for those being sent (each bounded by the socket timeout), so that an
     * abort after a failure comes after every part request: a part that completed after the abort would be kept.
     */
    private static void stop(ExecutorService senders, String bucket, String key) {
        senders.shutdownNow();
        boolean interrupted = false;
        while (true) {
            try {
                if (senders.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
                LOG.warn("still waiting for a part request of {}/{} to end", bucket, key);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private String uploadPart(String bucket, String key, String uploadId, int number, Path file, long offset,
                              long length) throws ProducerException {
        try {
            return client.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(number)
                            .contentLength(length),
                    RequestBody.fromContentProvider(() -> range(file, offset, length), length, CONTENT_TYPE)).eTag();
        } catch (S3Exception e) {
            if (e.awsErrorDetails() != null && "NoSuchUpload".equals(e.awsErrorDetails().errorCode())) {
                throw e; // the upload is gone: retrying this part cannot help, the whole upload is retried
            }
            throw classify("UploadPart " + number, bucket, key, e);
        } catch (SdkException | UncheckedIOException e) {
            throw classify("UploadPart " + number, bucket, key, e);
        }
    }

    /**
     * The diagnosis after a PUT that failed without an HTTP answer: a server that refuses a request (wrong key: 403)
     * may answer before reading the body and close the connection, and the HTTP client then reports only the broken
     * write. A HEAD, which has no body, gets the real answer, so wrong credentials are a configuration error at once
     * instead of a transient failure retried until the deadline. It also finds a PUT whose response was lost.
     *
     * @return true when the key exists; false when it does not or the HEAD failed on the network too
     */
    private boolean existsAfterFailedPut(String bucket, String key) throws ProducerException {
        try {
            if (exists(bucket, key)) {
                return true;
            }
            // HEAD answers a bare 404 both for a missing key and a missing bucket: ask about the bucket.
            client.headBucket(b -> b.bucket(bucket));
            return false;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new ProducerException(ExitCode.CONFIGURATION, "S3 PUT " + endpoint + "/" + bucket + "/" + key
                        + " refused: bucket " + bucket + " does not exist (the bucket must exist; the producer does "
                        + "not create it)", e);
            }
            return false;
        } catch (ProducerException e) {
            if (e.exitCode() == ExitCode.CONFIGURATION) {
                throw new ProducerException(ExitCode.CONFIGURATION, e.getMessage()
                        + " (after the PUT's connection was closed by the server)", e);
            }
            return false;
        } catch (SdkException e) {
            return false;
        }
    }

    /** HEAD of the key: true when it exists, false on 404. */
    private boolean exists(String bucket, String key) throws ProducerException {
        try {
            client.headObject(b -> b.bucket(bucket).key(key));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                // Missing key (NoSuchKey) or missing bucket: the latter is reported by the upload itself.
                return false;
            }
            throw classify("HEAD", bucket, key, e);
        } catch (SdkException e) {
            throw classify("HEAD", bucket, key, e);
        }
    }

    private void abort(String bucket, String key, String uploadId) {
        try {
            client.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            LOG.warn("could not abort multipart upload {} of {}/{}: {}; the store expires it", uploadId, bucket, key,
                    firstLine(e.getMessage()));
        }
    }

    /** A stream over {@code length} bytes of {@code file} from {@code offset}; opened anew for every read pass. */
    private static InputStream range(Path file, long offset, long length) {
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            channel.position(offset);
            return new LimitedInputStream(Channels.newInputStream(channel), length);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " at offset " + offset, e);
        }
    }

    @Override
    public StoredObject head(String bucket, String key) throws ProducerException {
        try {
            HeadObjectResponse head = client.headObject(b -> b.bucket(bucket).key(key));
            Map<String, String> metadata = new TreeMap<>();
            head.metadata().forEach((k, v) -> metadata.put(k.toLowerCase(Locale.ROOT), v));
            String etag = head.eTag() == null ? null : head.eTag().replace("\"", "");
            return new StoredObject(head.contentLength(), etag, metadata);
        } catch (SdkException e) {
            throw classify("HEAD", bucket, key, e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** Credentials, permissions and missing buckets need an operator; server errors and the network may pass. */
    private ProducerException classify(String operation, String bucket, String key, RuntimeException e) {
        String where = operation + " " + endpoint + "/" + bucket + "/" + key;
        if (e instanceof S3Exception s3) {
            int status = s3.statusCode();
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            String detail = status + (code == null ? "" : " " + code) + ": " + firstLine(s3.awsErrorDetails() == null
                    ? s3.getMessage() : s3.awsErrorDetails().errorMessage());
            // A HEAD right after our own PUT that finds nothing is the store's problem, not the configuration's;
            // so is a multipart upload that vanished (NoSuchUpload) or a part the server got damaged (BadDigest).
            if (status >= 500 || status == 408 || status == 429 || status == 404 && "HEAD".equals(operation)
                    || "NoSuchUpload".equals(code) || "BadDigest".equals(code) || "RequestTimeout".equals(code)) {
                return new ProducerException(ExitCode.TRANSIENT, "S3 " + where + " failed: " + detail, e);
            }
            String hint = status == 403 ? " (check the access key, secret key and bucket permissions)"
                    : "NoSuchBucket".equals(code) ? " (the bucket must exist; the producer does not create it)" : "";
            return new ProducerException(ExitCode.CONFIGURATION, "S3 " + where + " refused: " + detail + hint, e);
        }
        // SdkClientException: connection refused, timeouts, DNS; UncheckedIOException: the file while sending.
        return new ProducerException(ExitCode.TRANSIENT, "S3 " + where + " failed: " + firstLine(e.getMessage()), e);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "(no message)";
        }
        int eol = s.indexOf('\n');
        return eol < 0 ? s : s.substring(0, eol);
    }
}
