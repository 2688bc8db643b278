package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eventindex.message.Queues;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded memory: a 256 MiB SPB file, four times the heap, is validated, digested and uploaded (multipart, 32 parts
 * streamed from the file) by the shaded jar in a JVM whose heap is capped at 64 MB: a producer that held the file,
 * or any number of parts that grows with it, would run out of memory. About 15 s on a 2-core machine, most of it
 * disk and S3Proxy. The seed's largest object (670 MB) is the producer benchmark's business, not the suite's.
 */
class ProducerLargeFileIT {
    private static final long SIZE = 256L << 20;

    @TempDir
    Path dir;

    @Test
    void aSpbFourTimesTheHeapUploadsWithA64MegabyteHeap() throws Exception {
        ProducerJarIT.requireJar();
        Path file = dir.resolve("big.ei.spb");
        long events = LargeSpbFiles.write(file, SIZE);
        long size = Files.size(file);
        assertTrue(size >= SIZE, "generated " + size + " bytes");
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
             EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), "big-ak", "big-sk")) {
            s3.createBucket("eventindex");
            ProducerJarIT.Result r = ProducerJarIT.runJar(dir, List.of("-Xmx64m"),
                    Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "big-ak", ProducerArgs.ENV_S3_SECRET_KEY, "big-sk"),
                    file.toString(), "--brokers", broker.stompEndpoints(), "--s3-endpoint", s3.endpoint().toString(),
                    "--bucket", "eventindex", "--json");
            assertEquals(0, r.code(), r.stderr());
            assertTrue(r.stdout().contains("\"nevents\":" + events), r.stdout());
            List<String> keys = s3.keys("eventindex");
            assertEquals(1, keys.size());
            Map<String, String> meta = s3.userMetadata("eventindex", keys.get(0)).orElseThrow();
            assertEquals(Long.toString(size), meta.get("size"));
            assertEquals(1, broker.queueSize(Queues.SUPERVISOR));
        }
    }
}
