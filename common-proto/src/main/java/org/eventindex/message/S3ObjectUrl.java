package org.eventindex.message;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;

/**
 * The object location carried in control messages: {@code s3://host:port/bucket/key}.
 */
public record S3ObjectUrl(String host, int port, String bucket, String key) {

    public S3ObjectUrl {
        Objects.requireNonNull(host, "host is null");
        Objects.requireNonNull(bucket, "bucket is null");
        Objects.requireNonNull(key, "key is null");
        if (bucket.isEmpty() || key.isEmpty()) {
            throw new IllegalArgumentException("object URL needs a bucket and a key");
        }
    }

    /** @throws IllegalArgumentException naming the URL and what is wrong */
    public static S3ObjectUrl parse(String url) {
        if (url == null) {
            throw new IllegalArgumentException("object URL is missing");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("object URL '" + url + "' is not a URI: " + e.getReason());
        }
        if (!"s3".equals(uri.getScheme())) {
            throw new IllegalArgumentException("object URL '" + url + "' must start with s3://");
        }
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("object URL '" + url + "' must name host:port");
        }
        String path = uri.getRawPath();
        int slash = path == null ? -1 : path.indexOf('/', 1);
        if (path == null || !path.startsWith("/") || slash < 0 || slash == path.length() - 1) {
            throw new IllegalArgumentException("object URL '" + url + "' must be s3://host:port/bucket/key");
        }
        return new S3ObjectUrl(uri.getHost(), uri.getPort(), path.substring(1, slash), path.substring(slash + 1));
    }

    @Override
    public String toString() {
        return "s3://" + host + ":" + port + "/" + bucket + "/" + key;
    }
}
