package org.eventindex.supervisor;

import javax.net.ssl.TrustManager;
import org.eventindex.s3.RotatingCredentials;
import org.eventindex.s3.S3Clients;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link CleanupStore} on S3 (Ceph RGW): path-style, checksums only when required (Ceph refuses the SDK's default
 * trailing checksums), deletes in batches of 1000.
 */
final class S3CleanupStore implements CleanupStore {
    private static final int DELETE_BATCH = 1000;

    private final S3Client s3;
    private final String endpoint;

    private S3CleanupStore(S3Client s3, String endpoint) {
        this.s3 = s3;
        this.endpoint = endpoint;
    }

    static S3CleanupStore create(SupervisorConfig.Cleanup settings, TrustManager[] trustManagers) {
        Objects.requireNonNull(settings, "settings is null");
        S3Client client = S3Clients.create(URI.create(settings.s3Endpoint()), settings.region(),
                RotatingCredentials.of(settings.accessKey(), settings.secretKey()),
                S3Clients.urlConnection(trustManagers, null, null), true);
        return new S3CleanupStore(client, settings.s3Endpoint());
    }

    @Override
    public List<ListedObject> list(String bucket) throws IOException {
        try {
            List<ListedObject> out = new ArrayList<>();
            for (S3Object o : s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).build())
                    .contents()) {
                out.add(new ListedObject(o.key(), o.lastModified(), o.size() == null ? -1 : o.size()));
            }
            return out;
        } catch (SdkException e) {
            throw new IOException("cannot list bucket " + bucket + " at " + endpoint + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void delete(String bucket, List<String> keys) throws IOException {
        for (int i = 0; i < keys.size(); i += DELETE_BATCH) {
            List<ObjectIdentifier> ids = keys.subList(i, Math.min(keys.size(), i + DELETE_BATCH)).stream()
                    .map(k -> ObjectIdentifier.builder().key(k).build()).toList();
            DeleteObjectsResponse r;
            try {
                r = s3.deleteObjects(b -> b.bucket(bucket).delete(Delete.builder().objects(ids).quiet(true).build()));
            } catch (SdkException e) {
                throw new IOException("cannot delete " + ids.size() + " objects from bucket " + bucket + " at "
                        + endpoint + ": " + e.getMessage(), e);
            }
            if (r.hasErrors() && !r.errors().isEmpty()) {
                throw new IOException("deleting from bucket " + bucket + " at " + endpoint + " failed for "
                        + r.errors().size() + " objects, first " + r.errors().get(0).key() + ": "
                        + r.errors().get(0).message());
            }
        }
    }

    /**
     * Reads one object whole (for {@code supervisor rebuild-state}): its user metadata (keys lower case) and the SPB
     * summary of its content, which holds the GUIDs the metadata does not.
     *
     * @throws IOException naming the object when it cannot be read or is not a valid SPB file
     */
    StateRebuild.StoredObject read(String bucket, String key) throws IOException {
        try (ResponseInputStream<GetObjectResponse> in = s3.getObject(b -> b.bucket(bucket).key(key))) {
            Map<String, String> metadata = new TreeMap<>();
            in.response().metadata().forEach((k, v) -> metadata.put(k.toLowerCase(Locale.ROOT), v));
            return new StateRebuild.StoredObject(metadata, SpbSummary.scan(in, bucket + "/" + key,
                    SpbLimits.DEFAULT));
        } catch (SdkException e) {
            throw new IOException("cannot read object " + key + " of bucket " + bucket + " at " + endpoint + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        s3.close();
    }
}
