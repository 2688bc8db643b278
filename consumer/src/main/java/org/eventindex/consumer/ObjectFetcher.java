package org.eventindex.consumer;

import org.eventindex.message.S3ObjectUrl;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;

/** Opens objects of the object store for streaming. Implementations are thread-safe. */
public interface ObjectFetcher {

    /**
     * @return the object's bytes, to be read once and closed
     * @throws FileNotFoundException when the object does not exist (a retry cannot help)
     * @throws IOException           when the store cannot be reached or refuses the request, naming the object
     */
    InputStream open(S3ObjectUrl url) throws IOException;

    /**
     * Opens the object together with the checksum its producer recorded (user metadata {@code sha256}: hex SHA-256
     * of the object's bytes). The default has no checksum.
     */
    default Opened openWithChecksum(S3ObjectUrl url) throws IOException {
        return new Opened(open(url), null);
    }

    /**
     * @param in     the object's bytes
     * @param sha256 lower-case hex SHA-256 the producer recorded, or null when the object has none
     * @param size   the object's length as the store reported it, or -1 when unknown
     */
    record Opened(InputStream in, String sha256, long size) {
        public Opened(InputStream in, String sha256) {
            this(in, sha256, -1);
        }
    }
}
