package org.eventindex.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.TrustManager;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The one place S3 clients are made (producer, consumer, the supervisor's cleanup, preflight): path-style access (Ceph
 * RGW buckets are not host names), checksums only when required (Ceph refuses the SDK's default trailing checksums
 * with 400 XAmzContentSHA256Mismatch), and credentials asked for before each request, so that a
 * {@link RotatingCredentials} follows a key rotation.
 */
public final class S3Clients {
    /** The signing region when none is configured (Ceph RGW accepts any). */
    public static final String DEFAULT_REGION = "us-east-1";

    private S3Clients() {
    }

    /**
     * @param region      the signing region; null or empty: {@link #DEFAULT_REGION}
     * @param http        the HTTP client, with its TLS trust and pool ({@link #urlConnection} or the caller's own)
     * @param sdkRetries  false: every failure reaches the caller at once (the producer's own policy retries)
     */
    public static S3Client create(URI endpoint, String region, AwsCredentialsProvider credentials,
                                  SdkHttpClient.Builder<?> http, boolean sdkRetries) {
        Objects.requireNonNull(endpoint, "endpoint is null");
        Objects.requireNonNull(credentials, "credentials is null");
        Objects.requireNonNull(http, "http is null");
        var b = S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.of(region == null || region.isBlank() ? DEFAULT_REGION : region))
                .forcePathStyle(true)
                .credentialsProvider(credentials)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(http);
        if (!sdkRetries) {
            b.overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()));
        }
        return b.build();
    }

    /**
     * The JDK's HTTP client (no extra jar: the producer's and the short-lived commands' choice).
     *
     * @param trust          for an https endpoint signed by a private CA; null: the JVM's trust store
     * @param connectTimeout null: the SDK's default
     * @param socketTimeout  null: the SDK's default
     */
    public static UrlConnectionHttpClient.Builder urlConnection(TrustManager[] trust, Duration connectTimeout,
                                                                Duration socketTimeout) {
        UrlConnectionHttpClient.Builder http = UrlConnectionHttpClient.builder();
        if (connectTimeout != null) {
            http.connectionTimeout(connectTimeout);
        }
        if (socketTimeout != null) {
            http.socketTimeout(socketTimeout);
        }
        if (trust != null) {
            http.tlsTrustManagersProvider(() -> trust);
        }
        return http;
    }
}
