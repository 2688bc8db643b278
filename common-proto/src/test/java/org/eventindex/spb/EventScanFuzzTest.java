package org.eventindex.spb;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz target for {@link EventScan}: for any bytes, the scan either refuses them or protobuf parses them to a message
 * whose serialization is those very bytes and whose fields are the scanned ones (no exception either way).
 */
class EventScanFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void scanAgreesWithProtobuf(byte[] bytes) {
        EventScanTest.assertAgreesWithProtobuf(bytes);
    }
}
