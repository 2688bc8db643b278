package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.gaul.s3proxy.AccessGrant;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An in-process S3 server (S3Proxy) for tests and the demo stack: a filesystem blob store in a given folder, served on
 * 127.0.0.1 with a free port, requests signed with the given access/secret key (AWS signature v2 or v4, path-style).
 *
 * <p>Every object GET that reaches the store is counted per bucket and key ({@link #getCount}), so a test can assert
 * which objects a consumer actually fetched. HEAD requests and the inspection helpers here are not counted.
 */
public final class EmbeddedS3 implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final S3Proxy proxy;
    private final BlobStore store;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private final Map<String, AtomicLong> gets;
    private final AtomicLong totalGets;
    private final Map<String, String> keys;
    private final Map<String, AtomicLong> requestsByKey;

    private EmbeddedS3(S3Proxy proxy, BlobStore store, String accessKey, String secretKey,
                       Map<String, AtomicLong> gets, AtomicLong totalGets, boolean https, String host,
                       Map<String, String> keys, Map<String, AtomicLong> requestsByKey) {
        this.proxy = proxy;
        this.store = store;
        this.endpoint = URI.create(https ? "https://" + host + ":" + proxy.getSecurePort()
                : "http://" + host + ":" + proxy.getPort());
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.gets = gets;
        this.totalGets = totalGets;
        this.keys = keys;
        this.requestsByKey = requestsByKey;
    }

    /** Starts S3Proxy storing objects under {@code dir}; requests must be signed with the given key pair. */
    public static EmbeddedS3 start(Path dir, String accessKey, String secretKey) {
        return start(dir, accessKey, secretKey, null, "127.0.0.1", 0);
    }

    /**
     * {@link #start(Path, String, String)} listening on {@code host:port} (an address of this machine, e.g. a test
     * host's address in its network namespace; port 0: a free one).
     */
    public static EmbeddedS3 start(Path dir, String accessKey, String secretKey, String host, int port) {
        return start(dir, accessKey, secretKey, null, requireNonNull(host, "host is null"), port);
    }

    /**
     * Starts S3Proxy serving HTTPS only ({@link #endpoint()} is {@code https://127.0.0.1:PORT}) with the certificate
     * of {@code certificates}.
     */
    public static EmbeddedS3 startHttps(Path dir, String accessKey, String secretKey, TestCertificates certificates) {
        return start(dir, accessKey, secretKey, requireNonNull(certificates, "certificates is null"), "127.0.0.1",
                0);
    }

    private static EmbeddedS3 start(Path dir, String accessKey, String secretKey, TestCertificates tls, String host,
                                    int port) {
        requireNonNull(dir, "dir is null");
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create S3 data folder " + dir, e);
        }
        BlobStore store = new FilesystemNio2BlobStore(dir.toAbsolutePath().toString());
        Map<String, AtomicLong> gets = new ConcurrentHashMap<>();
        AtomicLong totalGets = new AtomicLong();
        BlobStore counting = new CountingBlobStore(store, gets, totalGets);
        S3Proxy.Builder builder = S3Proxy.builder()
                .blobStore(counting)
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey);
        if (tls == null) {
            builder.endpoint(URI.create("http://" + host + ":" + port));
        } else {
            builder.secureEndpoint(URI.create("https://" + host + ":" + port))
                    .keyStore(tls.keyStore().toString(), tls.keyStorePassword());
        }
        S3Proxy proxy = builder.build();
        // Several key pairs on one store, as an RGW user holds several keys during a rotation: a request signed with
        // a key that is not (or no longer) here is refused with AccessDenied.
        Map<String, String> keys = new ConcurrentHashMap<>(Map.of(accessKey, secretKey));
        Map<String, AtomicLong> requestsByKey = new ConcurrentHashMap<>();
        proxy.setBlobStoreLocator((identity, container, blob) -> {
            String secret = identity == null ? null : keys.get(identity);
            if (secret == null) {
                return null;
            }
            requestsByKey.computeIfAbsent(identity, k -> new AtomicLong()).incrementAndGet();
            return new AccessGrant(secret, counting);
        });
        try {
            proxy.start();
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (!"STARTED".equals(proxy.getState())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("S3Proxy in " + dir + " did not start within " + START_TIMEOUT);
                }
                Thread.onSpinWait();
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot start S3Proxy in " + dir, e);
        }
        return new EmbeddedS3(proxy, store, accessKey, secretKey, gets, totalGets, tls != null, host, keys,
                requestsByKey);
    }

    /** {@code http://127.0.0.1:PORT} (or https); use path-style access and region us-east-1. */
    public URI endpoint() {
        return endpoint;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    /** Issues another key pair for the same store (the first step of a key rotation); both are valid until revoked. */
    public void addKey(String accessKey, String secretKey) {
        keys.put(requireNonNull(accessKey, "accessKey is null"), requireNonNull(secretKey, "secretKey is null"));
    }

    /** Revokes a key pair: requests signed with it are refused from now on. */
    public void revokeKey(String accessKey) {
        if (keys.remove(requireNonNull(accessKey, "accessKey is null")) == null) {
            throw new IllegalArgumentException("no key " + accessKey + " to revoke");
        }
    }

    /** Requests accepted with {@code accessKey} so far. */
    public long requestsWith(String accessKey) {
        AtomicLong n = requestsByKey.get(accessKey);
        return n == null ? 0 : n.get();
    }

    /** Creates a bucket directly in the store (idempotent). */
    public void createBucket(String bucket) {
        requireNonNull(bucket, "bucket is null");
        if (!store.containerExists(bucket)) {
            store.createContainer(bucket);
        }
    }

    /** Object GET requests served for one object since start. */
    public long getCount(String bucket, String key) {
        AtomicLong n = gets.get(counterKey(requireNonNull(bucket, "bucket is null"), requireNonNull(key, "key is null")));
        return n == null ? 0 : n.get();
    }

    /** Object GET requests served since start, all objects. */
    public long totalGets() {
        return totalGets.get();
    }

    /** The keys of a bucket, sorted; empty when the bucket does not exist. Not counted as GETs. */
    public List<String> keys(String bucket) {
        requireNonNull(bucket, "bucket is null");
        if (!store.containerExists(bucket)) {
            return List.of();
        }
        ListObjectsV2Response listing = store.list(bucket);
        return listing.contents().stream().map(S3Object::key).sorted().toList();
    }

    /** The user metadata of an object (keys lower case, without {@code x-amz-meta-}), if it exists. Not counted. */
    public Optional<Map<String, String>> userMetadata(String bucket, String key) {
        HeadObjectResponse head = store.blobMetadataIfPresent(requireNonNull(bucket, "bucket is null"),
                requireNonNull(key, "key is null"));
        return head == null ? Optional.empty() : Optional.of(Map.copyOf(head.metadata()));
    }

    /** The bytes of an object, read from the store directly (not counted as a GET). */
    public byte[] read(String bucket, String key) {
        try (InputStream in = store.getBlob(requireNonNull(bucket, "bucket is null"), requireNonNull(key, "key is null"))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read s3://" + bucket + "/" + key + " from the embedded store", e);
        }
    }

    @Override
    public void close() {
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop S3Proxy on " + endpoint, e);
        }
    }

    private static String counterKey(String bucket, String key) {
        return bucket + "/" + key;
    }

    /** Counts object reads as they reach the store from the S3 front end. */
    private static final class CountingBlobStore extends ForwardingBlobStore {
        private final Map<String, AtomicLong> gets;
        private final AtomicLong totalGets;

        CountingBlobStore(BlobStore delegate, Map<String, AtomicLong> gets, AtomicLong totalGets) {
            super(delegate);
            this.gets = gets;
            this.totalGets = totalGets;
        }

        @Override
        public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
            gets.computeIfAbsent(counterKey(request.bucket(), request.key()), k -> new AtomicLong()).incrementAndGet();
            totalGets.incrementAndGet();
            return super.getBlob(request);
        }
    }
}
