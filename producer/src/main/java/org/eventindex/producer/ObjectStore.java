package org.eventindex.producer;

import java.nio.file.Path;
import java.util.Map;

/** The object store as the producer needs it. Failures are {@link ProducerException}s with the right exit code. */
public interface ObjectStore extends AutoCloseable {

    /**
     * Uploads {@code file} as one object unless the key already exists ({@code If-None-Match: *}).
     *
     * @return false when an object with this key was already there (nothing was written)
     */
    boolean putIfAbsent(String bucket, String key, Path file, Map<String, String> userMetadata)
            throws ProducerException;

    /** The stored object's size and user metadata (keys lower case). */
    StoredObject head(String bucket, String key) throws ProducerException;

    @Override
    void close();

    /** What a HEAD request tells. */
    record StoredObject(long size, Map<String, String> userMetadata) {
        public StoredObject {
            userMetadata = Map.copyOf(userMetadata);
        }
    }
}
