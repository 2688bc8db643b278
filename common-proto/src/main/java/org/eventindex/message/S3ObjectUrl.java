package org.eventindex.message;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;

/**
 * The object location carried in control messages: {@code s3://host:port/bucket/key}. The key is checked as a
 * relative path of plain segments (no {@code .} or {@code ..} segment, no empty segment, no backslash, no control
 * character, at most {@link #MAX_KEY_LENGTH} characters), so no message can make a reader address an object outside
 * the key space the producers write.
 */
public record S3ObjectUrl(String host, int port, String bucket, String key) {
    /** S3's own limit on key length (in bytes; checked here in characters of the decoded key). */
    public static final int MAX_KEY_LENGTH = 1024;

    public S3ObjectUrl {
        Objects.requireNonNull(host, "host is null");
        Objects.requireNonNull(bucket, "bucket is null");
        Objects.requireNonNull(key, "key is null");
        if (bucket.isEmpty() || key.isEmpty()) {
            throw new IllegalArgumentException("object URL needs a bucket and a key");
        }
        String problem = keyProblem(key);
        if (problem != null) {
            throw new IllegalArgumentException("object key '" + org.eventindex.names.Printable.of(key, 200) + "' "
                    + problem);
        }
    }

    /** Why {@code key} is refused, or null when it is a plain relative key. */
    private static String keyProblem(String key) {
        if (key.length() > MAX_KEY_LENGTH) {
            return "is " + key.length() + " characters long, the limit is " + MAX_KEY_LENGTH;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return "has a control character at position " + i;
            }
            if (c == '\\') {
                return "has a backslash at position " + i;
            }
        }
        for (String segment : key.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return "has an empty, '.' or '..' path segment";
            }
        }
        return null;
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
        if (uri.getRawUserInfo() != null) {
            // the URL is not echoed: its user part may be a credential, which must not reach logs or reports
            throw new IllegalArgumentException("object URL 's3://...@" + uri.getHost() + ":" + uri.getPort()
                    + "/...' carries user information; credentials come from the reader's configuration, not from"
                    + " messages");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("object URL '" + url + "' has a query or fragment; an object is"
                    + " named by s3://host:port/bucket/key alone");
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
