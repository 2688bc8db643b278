package org.eventindex.message;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class S3ObjectUrlTest {
    @Test
    void producerKeysParse() {
        S3ObjectUrl u = S3ObjectUrl.parse("s3://rgw.example:7480/eventindex/panda/12345678/12345678.G_1.1_ab.ei.spb");
        assertEquals(new S3ObjectUrl("rgw.example", 7480, "eventindex", "panda/12345678/12345678.G_1.1_ab.ei.spb"), u);
    }

    @Test
    void keysThatCouldLeaveTheKeySpaceAreRefusedWithTheReason() {
        assertRefused("s3://h:1/eventindex/../other/k", "'..' path segment");
        assertRefused("s3://h:1/eventindex/a/./k", "'..' path segment");
        assertRefused("s3://h:1/eventindex/a//k", "empty");
        assertRefused("s3://h:1/eventindex/a/k/", "empty");
        assertRefused("s3://h:1/eventindex/a\\..\\k", "is not a URI");
        IllegalArgumentException slash = assertThrows(IllegalArgumentException.class,
                () -> new S3ObjectUrl("h", 1, "eventindex", "a\\..\\k"));
        assertTrue(slash.getMessage().contains("backslash at position 1"), slash.getMessage());
        assertRefused("s3://h:1/eventindex/" + "k".repeat(S3ObjectUrl.MAX_KEY_LENGTH + 1), "the limit is 1024");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new S3ObjectUrl("h", 1, "eventindex", "a\u0000b"));
        assertTrue(e.getMessage().contains("control character at position 1"), e.getMessage());
    }

    @Test
    void partsAnObjectNameHasNoPlaceForAreRefusedNotDropped() {
        assertRefused("s3://h:1/eventindex/a/k?versionId=3", "has a query or fragment");
        assertRefused("s3://h:1/eventindex/a/k#x", "has a query or fragment");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> S3ObjectUrl.parse("s3://alice:s3cr3t@h:1/eventindex/a/k"));
        assertTrue(e.getMessage().contains("carries user information"), e.getMessage());
        assertTrue(!e.getMessage().contains("s3cr3t") && !e.getMessage().contains("alice"), e.getMessage());
    }

    private static void assertRefused(String url, String reason) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> S3ObjectUrl.parse(url));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }
}
