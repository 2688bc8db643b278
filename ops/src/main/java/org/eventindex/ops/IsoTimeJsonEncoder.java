package org.eventindex.ops;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * Logback's {@link JsonEncoder} plus a {@code "time"} field: the event's time as ISO-8601 with date, milliseconds and
 * zone offset ({@code 2026-11-26T03:04:05.678+00:00}), the same as the text log's, next to JsonEncoder's epoch
 * milliseconds {@code "timestamp"}. Used by the distribution's {@code conf/logback/json-*.xml}; Logback is on the
 * class path of the distribution only, so nothing else may load this class.
 */
public final class IsoTimeJsonEncoder extends JsonEncoder {
    /** The field's name in every JSON line. */
    public static final String TIME_FIELD = "time";

    private final DateTimeFormatter format =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSxxx").withZone(ZoneId.systemDefault());

    @Override
    protected void appendCustomFields(StringBuilder sb, ILoggingEvent event) {
        // JsonEncoder calls this last, just before the closing brace; a separator unless the object is still empty
        if (sb.charAt(sb.length() - 1) != '{') {
            sb.append(',');
        }
        sb.append('"').append(TIME_FIELD).append("\":\"")
                .append(format.format(Instant.ofEpochMilli(event.getTimeStamp()))).append('"');
    }
}
