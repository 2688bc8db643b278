package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link ObjectStore} over the AWS SDK v2 with the settings Ceph RGW needs: path-style access, region us-east-1,
 * checksums only when required (otherwise Ceph answers 400 XAmzContentSHA256Mismatch). The SDK's own retries are
 * off: {@link RetryPolicy} decides.
 */
public final class S3ObjectStore implements ObjectStore {
    private final S3Client client;
    private final URI endpoint;

    /**
     * @param endpoint {@code http(s)://host:port} of the S3 service
     */
    public S3ObjectStore(URI endpoint, String accessKey, String secretKey, Duration connectTimeout,
                         Duration socketTimeout) {
        this.endpoint = requireNonNull(endpoint, "endpoint is null");
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
        this.client = S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .httpClient(UrlConnectionHttpClient.builder()
                        .connectionTimeout(requireNonNull(connectTimeout, "connectTimeout is null"))
                        .socketTimeout(requireNonNull(socketTimeout, "socketTimeout is null"))
                        .build())
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    @Override
    public boolean putIfAbsent(String bucket, String key, Path file, Map<String, String> userMetadata)
            throws ProducerException {
        requireNonNull(file, "file is null");
        requireNonNull(userMetadata, "userMetadata is null");
        try {
            client.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*")
                    .contentType("application/octet-stream").metadata(userMetadata), RequestBody.fromFile(file));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                return false;
            }
            throw classify("PUT", bucket, key, e);
        } catch (SdkException e) {
            throw classify("PUT", bucket, key, e);
        }
    }

    @Override
    public StoredObject head(String bucket, String key) throws ProducerException {
        try {
            HeadObjectResponse head = client.headObject(b -> b.bucket(bucket).key(key));
            Map<String, String> metadata = new TreeMap<>();
            head.metadata().forEach((k, v) -> metadata.put(k.toLowerCase(Locale.ROOT), v));
            return new StoredObject(head.contentLength(), metadata);
        } catch (SdkException e) {
            throw classify("HEAD", bucket, key, e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** Credentials, permissions and missing buckets need an operator; server errors and the network may pass. */
    private ProducerException classify(String operation, String bucket, String key, SdkException e) {
        String where = operation + " " + endpoint + "/" + bucket + "/" + key;
        if (e instanceof S3Exception s3) {
            int status = s3.statusCode();
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            String detail = status + (code == null ? "" : " " + code) + ": " + firstLine(s3.awsErrorDetails() == null
                    ? s3.getMessage() : s3.awsErrorDetails().errorMessage());
            // A HEAD right after our own PUT that finds nothing is the store's problem, not the configuration's.
            if (status >= 500 || status == 408 || status == 429 || status == 404 && "HEAD".equals(operation)) {
                return new ProducerException(ExitCode.TRANSIENT, "S3 " + where + " failed: " + detail, e);
            }
            String hint = status == 403 ? " (check the access key, secret key and bucket permissions)"
                    : "NoSuchBucket".equals(code) ? " (the bucket must exist; the producer does not create it)" : "";
            return new ProducerException(ExitCode.CONFIGURATION, "S3 " + where + " refused: " + detail + hint, e);
        }
        // SdkClientException: connection refused, timeouts, DNS.
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
