package org.eventindex.message;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Fuzz targets for the control-message JSON mapping ({@link Json}) and {@link S3ObjectUrl}. Contract: any body
 * either maps to the message record or fails with an {@link IOException} (Jackson's processing exceptions) carrying
 * a message; a mapped message written back out maps to the same record. An accepted object URL survives
 * {@code parse(toString())}; a refused one throws {@link IllegalArgumentException} with a message.
 */
class MessageJsonFuzzTest {
    private static final List<Class<? extends Record>> MESSAGES =
            List.of(ProducerMessage.class, ConsumerSignal.class, ConsumerReport.class, DatasetManifest.class);

    /** The same bytes read as each control message type the daemons receive. */
    @FuzzTest(maxDuration = "30s")
    void controlMessages(byte[] body) {
        if (body == null) {
            return;
        }
        for (Class<? extends Record> type : MESSAGES) {
            Record message;
            try {
                message = Json.read(body, type);
            } catch (IOException e) {
                assertNotNull(e.getMessage(), "message of " + e);
                continue;
            }
            if (message == null) {
                continue; // the JSON literal null
            }
            byte[] written = Json.write(message);
            try {
                assertEquals(message, Json.read(written, type), type.getSimpleName() + " written and read back");
            } catch (IOException e) {
                throw new AssertionError(type.getSimpleName() + " written by Json.write does not read back", e);
            }
        }
    }

    @FuzzTest(maxDuration = "30s")
    void objectUrl(byte[] bytes) {
        String url = bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        S3ObjectUrl parsed;
        try {
            parsed = S3ObjectUrl.parse(url);
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage(), "message of " + e);
            return;
        }
        assertEquals(parsed, S3ObjectUrl.parse(parsed.toString()), "parse(toString()) of " + url);
    }
}
