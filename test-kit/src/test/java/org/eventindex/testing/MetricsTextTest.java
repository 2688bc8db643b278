package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MetricsTextTest {

    @Test
    void metricsAreSummedOverMatchingLabels() {
        String text = """
                # HELP jvm_memory_used_bytes Used bytes of a given JVM memory area.
                # TYPE jvm_memory_used_bytes gauge
                jvm_memory_used_bytes{area="heap"} 1.5E8
                jvm_memory_used_bytes{area="nonheap"} 4.0E7
                jvm_gc_collection_seconds_count{gc="G1 Young Generation"} 7
                jvm_gc_collection_seconds_count{gc="G1 Old Generation"} 1
                jvm_gc_collection_seconds_sum{gc="G1 Young Generation"} 0.25
                eventindex_consumer_run_memory_limit_bytes 3.3554432E8
                """;
        assertEquals(1.5e8, MetricsText.value(text, "jvm_memory_used_bytes", "area=\"heap\""));
        assertEquals(8, MetricsText.value(text, "jvm_gc_collection_seconds_count"));
        assertEquals(0.25, MetricsText.value(text, "jvm_gc_collection_seconds_sum", ""));
        assertEquals(335_544_320, MetricsText.value(text, "eventindex_consumer_run_memory_limit_bytes", ""));
        assertEquals(-1, MetricsText.value(text, "jvm_memory_max_bytes", ""));
    }
}
