package org.eventindex.producer;

import java.nio.file.Path;
import java.util.Map;

/** The object store as the producer needs it. Failures are {@link ProducerException}s with the right exit code. */
public interface ObjectUploader extends AutoCloseable {

    /**
     * Uploads {@code file} as one object unless the key already exists ({@code If-None-Match: *}), streamed from
     * the file (a multipart upload for large files, see {@link #uploadSettings()}).
     *
     * @return false when an object with this key was already there (nothing was written)
     */
    boolean putIfAbsent(String bucket, String key, Path file, Map<String, String> userMetadata)
            throws ProducerException;

    /**
     * {@link #putIfAbsent(String, String, Path, Map)} within a run's retry budget: a store that uploads in parts
     * retries a failed part alone instead of the whole upload.
     */
    default boolean putIfAbsent(String bucket, String key, Path file, Map<String, String> userMetadata,
                                RetryPolicy.Budget budget) throws ProducerException {
        return putIfAbsent(bucket, key, file, userMetadata);
    }

    /** The stored object's size, ETag and user metadata (keys lower case). */
    StoredObject head(String bucket, String key) throws ProducerException;

    /** How this store uploads (single PUT or multipart), which decides the ETag a stored file must have. */
    UploadSettings uploadSettings();

    @Override
    void close();

    /**
     * What a HEAD request tells.
     *
     * @param etag the ETag without quotes (null when the store sent none)
     */
    record StoredObject(long size, String etag, Map<String, String> userMetadata) {
        public StoredObject {
            userMetadata = Map.copyOf(userMetadata);
        }
    }
}
