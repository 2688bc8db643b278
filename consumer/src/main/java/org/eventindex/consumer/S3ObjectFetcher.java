package org.eventindex.consumer;

import org.eventindex.message.S3ObjectUrl;
import org.eventindex.s3.RotatingCredentials;
import org.eventindex.s3.S3Clients;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import javax.net.ssl.TrustManager;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Objects;

/** {@link ObjectFetcher} over the AWS SDK v2 S3 client (which retries failed requests itself). */
public final class S3ObjectFetcher implements ObjectFetcher, AutoCloseable {
    private final S3Client s3;
    private final boolean owned;

    /** Uses a client built elsewhere; {@link #close()} leaves it open. */
    public S3ObjectFetcher(S3Client s3) {
        this(s3, false);
    }

    private S3ObjectFetcher(S3Client s3, boolean owned) {
        this.s3 = Objects.requireNonNull(s3, "s3 is null");
        this.owned = owned;
    }

    /**
     * A client for Ceph RGW and other S3 servers ({@link S3Clients}) with fixed keys.
     *
     * @param secretKey     null for anonymous access
     */
    public static S3ObjectFetcher connect(URI endpoint, String accessKey, String secretKey, int maxConnections) {
        return connect(endpoint, accessKey, secretKey, maxConnections, null);
    }

    public static S3ObjectFetcher connect(URI endpoint, String accessKey, String secretKey, int maxConnections,
                                          TrustManager[] trustManagers) {
        return connect(endpoint, RotatingCredentials.of(accessKey, secretKey), maxConnections, trustManagers);
    }

    /**
     * A client ({@link S3Clients}) over the Apache HTTP client with one connection per fetch thread; the SDK retries
     * failed requests.
     *
     * @param credentials   asked for before each request ({@link RotatingCredentials} follows a key rotation)
     * @param trustManagers for an https endpoint signed by a private CA; null: the JVM's trust store
     */
    // ApacheHttpClient (Apache HttpClient 4) is deprecated in SDK 2.56 in favour of apache5-client; it is the client
    // measured against Ceph here and stays until the move to apache5 is tested there.
    @SuppressWarnings("deprecation")
    public static S3ObjectFetcher connect(URI endpoint, AwsCredentialsProvider credentials, int maxConnections,
                                          TrustManager[] trustManagers) {
        ApacheHttpClient.Builder http = ApacheHttpClient.builder().maxConnections(Math.max(2, maxConnections));
        return new S3ObjectFetcher(S3Clients.create(endpoint, S3Clients.DEFAULT_REGION, credentials,
                trustManagers == null ? http : http.tlsTrustManagersProvider(() -> trustManagers), true), true);
    }

    @Override
    public InputStream open(S3ObjectUrl url) throws IOException {
        return openWithChecksum(url).in();
    }

    /** The producer's {@code sha256} user metadata comes with the GET response, at no extra request. */
    @Override
    public Opened openWithChecksum(S3ObjectUrl url) throws IOException {
        Objects.requireNonNull(url, "url is null");
        try {
            ResponseInputStream<GetObjectResponse> in = s3.getObject(GetObjectRequest.builder().bucket(url.bucket())
                    .key(url.key()).build());
            String sha = in.response().metadata().get("sha256");
            Long length = in.response().contentLength();
            return new Opened(in, sha == null ? null : sha.toLowerCase(java.util.Locale.ROOT),
                    length == null ? -1 : length);
        } catch (NoSuchKeyException | NoSuchBucketException e) {
            throw new FileNotFoundException("object " + url + " does not exist (" + e.awsErrorDetails().errorCode()
                    + ")");
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new FileNotFoundException("object " + url + " does not exist (HTTP 404)");
            }
            throw new IOException("object " + url + ": S3 refused the GET: HTTP " + e.statusCode() + " "
                    + (e.awsErrorDetails() == null ? e.getMessage() : e.awsErrorDetails().errorCode()), e);
        } catch (SdkException e) {
            throw new IOException("object " + url + ": cannot reach S3: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (owned) {
            s3.close();
        }
    }
}
