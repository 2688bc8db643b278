package org.eventindex.s3;

import java.util.Objects;
import org.eventindex.config.Secret;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * S3 keys as their files hold them at each request: the SDK asks for credentials before signing every request, and
 * each {@link Secret} reads its file again when it changed. A rotated key pair (a second key issued, its files
 * replaced, the old key revoked) is used from the next request on, with no restart and no request in flight cut.
 */
public final class RotatingCredentials implements AwsCredentialsProvider {
    private final Secret accessKey;
    private final Secret secretKey;

    private RotatingCredentials(Secret accessKey, Secret secretKey) {
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    /**
     * @param accessKey null or empty: anonymous requests
     * @param secretKey null: the empty secret (S3 servers that check no signature)
     */
    public static AwsCredentialsProvider of(Secret accessKey, Secret secretKey) {
        if (accessKey == null || accessKey.value().isEmpty()) {
            return AnonymousCredentialsProvider.create();
        }
        return new RotatingCredentials(accessKey, secretKey);
    }

    /** Fixed keys (a short-lived command's, read once). */
    public static AwsCredentialsProvider of(String accessKey, String secretKey) {
        return of(Secret.of(accessKey), Secret.of(secretKey));
    }

    @Override
    public AwsCredentials resolveCredentials() {
        return AwsBasicCredentials.create(accessKey.value(), secretKey == null ? "" : secretKey.value());
    }

    @Override
    public String toString() {
        return "RotatingCredentials[accessKey=***, secretKey=***]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RotatingCredentials r && accessKey.equals(r.accessKey)
                && Objects.equals(secretKey, r.secretKey);
    }

    @Override
    public int hashCode() {
        return accessKey.hashCode();
    }
}
