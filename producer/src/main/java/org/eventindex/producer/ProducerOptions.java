package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.eventindex.stomp.StompEndpoint;

/**
 * A parsed command line (what to run; how to print the result, {@code --json} and {@code -v}, is the CLI's:
 * {@link ProducerArgs#wantsJson}, {@link ProducerArgs#wantsVerbose}). Secrets (STOMP password, S3 secret key) never appear in {@link #toString()}.
 * In a dry run {@code brokers}, {@code accessKey} and {@code secretKey} may be absent (empty list / null), and so may
 * {@code s3Endpoint} and {@code bucket} (both null: the object's URL is not known).
 * {@code retryDeadline} is null unless {@code --retry-deadline} was given (the retry policy's own deadline applies).
 */
public record ProducerOptions(Path file, List<StompEndpoint> brokers, String queue, String user, String password,
                              URI s3Endpoint, String bucket, String accessKey, String secretKey, boolean dryRun,
                              Duration retryDeadline, BrokerTls tls) {

    public ProducerOptions {
        requireNonNull(file, "file is null");
        brokers = List.copyOf(requireNonNull(brokers, "brokers is null"));
        requireNonNull(queue, "queue is null");
        if (!dryRun || s3Endpoint != null || bucket != null) {
            requireNonNull(s3Endpoint, "s3Endpoint is null");
            requireNonNull(bucket, "bucket is null");
        }
        requireNonNull(tls, "tls is null");
    }

    /**
     * TLS to the brokers.
     *
     * @param enabled            brokers were given as {@code stomp+ssl://}
     * @param trustStore         PKCS12 or JKS file of trusted certificates; null: the JVM's default trust store
     * @param trustStorePassword its password (null: none); never printed
     */
    public record BrokerTls(boolean enabled, Path trustStore, String trustStorePassword) {
        public static final BrokerTls NONE = new BrokerTls(false, null, null);

        @Override
        public String toString() {
            return "BrokerTls[enabled=" + enabled + ", trustStore=" + trustStore + ", trustStorePassword="
                    + (trustStorePassword == null ? "none" : "***") + "]";
        }
    }

    @Override
    public String toString() {
        return "ProducerOptions[file=" + file + ", brokers=" + brokers + ", queue=" + queue + ", user=" + user
                + ", password=" + (password == null ? "none" : "***") + ", s3Endpoint=" + s3Endpoint
                + ", bucket=" + bucket + ", accessKey=" + accessKey + ", secretKey="
                + (secretKey == null ? "none" : "***") + ", dryRun=" + dryRun
                + ", retryDeadline=" + retryDeadline + ", tls=" + tls + "]";
    }
}
