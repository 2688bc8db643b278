package org.eventindex.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each JSON line stays one valid JSON object and carries the event's time as ISO-8601 with date and zone. */
final class IsoTimeJsonEncoderTest {
    private static final Instant WHEN = Instant.parse("2026-11-26T03:04:05.678Z");

    @Test
    void addsTheEventsTimeAsIsoWithZoneNextToTheEpochMilliseconds() throws Exception {
        IsoTimeJsonEncoder encoder = new IsoTimeJsonEncoder();
        encoder.setWithFormattedMessage(true); // as conf/logback/json-*.xml
        JsonNode line = encode(encoder, "dataset \"a\"\nsecond line\\");

        String time = line.get(IsoTimeJsonEncoder.TIME_FIELD).asText();
        assertTrue(time.matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}[+-]\\d{2}:\\d{2}"), time);
        assertEquals(WHEN, OffsetDateTime.parse(time).toInstant());
        assertEquals(WHEN.toEpochMilli(), line.get("timestamp").asLong());
        assertEquals("dataset \"a\"\nsecond line\\", line.get("formattedMessage").asText());
    }

    @Test
    void anObjectWithoutOtherFieldsHoldsTheTimeAlone() throws Exception {
        IsoTimeJsonEncoder encoder = new IsoTimeJsonEncoder();
        encoder.setWithSequenceNumber(false);
        encoder.setWithTimestamp(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithLevel(false);
        encoder.setWithThreadName(false);
        encoder.setWithLoggerName(false);
        encoder.setWithContext(false);
        encoder.setWithMarkers(false);
        encoder.setWithMDC(false);
        encoder.setWithKVPList(false);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithThrowable(false);
        encoder.setWithFormattedMessage(false);

        JsonNode line = encode(encoder, "m");

        assertEquals(1, line.size(), line.toString());
        assertEquals(WHEN, OffsetDateTime.parse(line.get(IsoTimeJsonEncoder.TIME_FIELD).asText()).toInstant());
    }

    private static JsonNode encode(IsoTimeJsonEncoder encoder, String message) throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        encoder.setContext(context);
        encoder.start();
        LoggingEvent event = new LoggingEvent(IsoTimeJsonEncoderTest.class.getName(),
                context.getLogger("org.eventindex.test"), Level.INFO, message, null, null);
        event.setInstant(WHEN);
        String text = new String(encoder.encode(event), StandardCharsets.UTF_8);
        assertTrue(text.endsWith("}\n") && text.indexOf('\n') == text.length() - 1, text);
        return new ObjectMapper().readTree(text);
    }
}
