package org.eventindex.producer;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eventindex.testing.EmbeddedS3;

/** The object-store contract against the light S3 server (S3Proxy) used by most tests and the demo stack. */
class S3ProxyObjectUploaderTest extends ObjectUploaderContract {
    private EmbeddedS3 s3;

    @Override
    void startBackend(Path dir) {
        s3 = EmbeddedS3.start(dir, ACCESS_KEY, SECRET_KEY);
    }

    @Override
    void stopBackend() {
        if (s3 != null) {
            s3.close();
        }
    }

    @Override
    URI endpoint() {
        return s3.endpoint();
    }

    @Override
    void createBucket(String bucket) {
        s3.createBucket(bucket);
    }

    @Override
    List<String> keys(String bucket) {
        return s3.keys(bucket);
    }

    @Override
    Map<String, String> userMetadata(String bucket, String key) {
        Map<String, String> out = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        out.putAll(s3.userMetadata(bucket, key).orElseThrow());
        return out;
    }

    @Override
    InputStream open(String bucket, String key) {
        return new ByteArrayInputStream(s3.read(bucket, key));
    }

    @Override
    boolean acceptsSdkDefaultChecksums() {
        return true;
    }
}
