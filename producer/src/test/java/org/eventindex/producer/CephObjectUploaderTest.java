package org.eventindex.producer;

import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eventindex.testing.EmbeddedCeph;

/**
 * The object-store contract against the real Ceph RADOS Gateway (one monitor, one memstore OSD, radosgw started by
 * {@link EmbeddedCeph}, ~15 s). Fails in CI when Ceph is not installed; skipped with the reason elsewhere.
 */
class CephObjectUploaderTest extends ObjectUploaderContract {
    private EmbeddedCeph ceph;

    @Override
    void startBackend(Path dir) {
        EmbeddedCeph.requireInstalled();
        ceph = EmbeddedCeph.start(dir, ACCESS_KEY, SECRET_KEY);
    }

    @Override
    void stopBackend() {
        if (ceph != null) {
            ceph.close();
        }
    }

    @Override
    URI endpoint() {
        return ceph.endpoint();
    }

    @Override
    void createBucket(String bucket) {
        ceph.createBucket(bucket);
    }

    @Override
    List<String> keys(String bucket) {
        return ceph.keys(bucket);
    }

    @Override
    Map<String, String> userMetadata(String bucket, String key) {
        return ceph.userMetadata(bucket, key).orElseThrow();
    }

    @Override
    InputStream open(String bucket, String key) {
        return ceph.open(bucket, key);
    }

    @Override
    boolean acceptsSdkDefaultChecksums() {
        return false;
    }
}
