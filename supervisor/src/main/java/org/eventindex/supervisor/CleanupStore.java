package org.eventindex.supervisor;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

/** The few object-store operations the cleanup needs. */
interface CleanupStore extends AutoCloseable {

    /** One stored object. */
    record StoredObject(String key, Instant lastModified, long size) {
    }

    /** Every object of the bucket (paged internally). */
    List<StoredObject> list(String bucket) throws IOException;

    /** Deletes objects; deleting a missing object is not an error. */
    void delete(String bucket, List<String> keys) throws IOException;

    @Override
    default void close() {
    }
}
