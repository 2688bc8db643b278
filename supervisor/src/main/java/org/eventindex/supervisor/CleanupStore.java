package org.eventindex.supervisor;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

/** The few object-store operations the cleanup needs. */
interface CleanupStore extends AutoCloseable {

    /** One object of a bucket listing. */
    record ListedObject(String key, Instant lastModified, long size) {
    }

    /** Every object of the bucket (paged internally). */
    List<ListedObject> list(String bucket) throws IOException;

    /** Deletes objects; deleting a missing object is not an error. */
    void delete(String bucket, List<String> keys) throws IOException;

    @Override
    default void close() {
    }
}
