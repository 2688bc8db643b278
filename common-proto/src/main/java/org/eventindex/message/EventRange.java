package org.eventindex.message;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.io.IOException;
import java.math.BigInteger;

/**
 * The smallest and largest event number of one run in one input file: {@code [minEvent, maxEvent]} in a producer
 * message's {@code runevtRanges}. Event numbers are uint64 (EIEvent_p1.eventNumber): each {@code long} here holds the
 * 64 bits, so values of 2^63 and above are negative in Java; compare them with {@link Long#compareUnsigned}.
 * <p>
 * In JSON both are written as unsigned decimals (0 to 18446744073709551615), as the experiment's producer writes
 * them. Reading also takes the signed form that earlier producers of this project wrote (a negative number is the
 * two's complement of its unsigned value), so journals and checkpoints holding it stay readable.
 */
@JsonSerialize(using = EventRange.Writer.class)
@JsonDeserialize(using = EventRange.Reader.class)
public record EventRange(long min, long max) {
    private static final BigInteger UINT64_LIMIT = BigInteger.ONE.shiftLeft(64);
    private static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);

    /** The unsigned decimal of a uint64 event number held in a {@code long}. */
    public static String unsigned(long eventNumber) {
        return Long.toUnsignedString(eventNumber);
    }

    @Override
    public String toString() {
        return "[" + unsigned(min) + ", " + unsigned(max) + "]";
    }

    /** Writes {@code [min, max]} as unsigned decimal numbers. */
    static final class Writer extends JsonSerializer<EventRange> {
        @Override
        public void serialize(EventRange r, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeStartArray();
            writeUnsigned(gen, r.min);
            writeUnsigned(gen, r.max);
            gen.writeEndArray();
        }

        private static void writeUnsigned(JsonGenerator gen, long v) throws IOException {
            if (v >= 0) {
                gen.writeNumber(v);
            } else {
                // A number token (not raw text) so that trees and token buffers hold it as an integer too.
                gen.writeNumber(new BigInteger(Long.toUnsignedString(v)));
            }
        }
    }

    /** Reads {@code [min, max]}: unsigned decimals up to 2^64 - 1, or the older signed form. */
    static final class Reader extends JsonDeserializer<EventRange> {
        @Override
        public EventRange deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String run = p.currentName();
            String where = run == null ? "event range" : "event range of run " + run;
            if (p.currentToken() != JsonToken.START_ARRAY) {
                return ctxt.reportInputMismatch(EventRange.class, where + " must be [minEvent, maxEvent], not "
                        + p.currentToken());
            }
            long[] values = new long[2];
            int n = 0;
            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                if (t != JsonToken.VALUE_NUMBER_INT) {
                    return ctxt.reportInputMismatch(EventRange.class, where
                            + " must be [minEvent, maxEvent] of integers; found " + t);
                }
                if (n == 2) {
                    return ctxt.reportInputMismatch(EventRange.class, where
                            + " has more than two numbers; expected [minEvent, maxEvent]");
                }
                values[n++] = eventNumber(p, ctxt, where);
            }
            if (n != 2) {
                return ctxt.reportInputMismatch(EventRange.class, where + " has " + n
                        + " number(s); expected [minEvent, maxEvent]");
            }
            return new EventRange(values[0], values[1]);
        }

        private static long eventNumber(JsonParser p, DeserializationContext ctxt, String where) throws IOException {
            JsonParser.NumberType type = p.getNumberType();
            if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
                return p.getLongValue(); // a negative one: the signed form, already the two's complement
            }
            BigInteger v = p.getBigIntegerValue();
            if (v.compareTo(INT64_MIN) < 0 || v.compareTo(UINT64_LIMIT) >= 0) {
                return ctxt.reportInputMismatch(EventRange.class, where + ": event number " + v
                        + " is not a uint64 (0 to " + UINT64_LIMIT.subtract(BigInteger.ONE) + ")");
            }
            return v.longValue(); // the low 64 bits: the uint64's bit pattern
        }
    }
}
