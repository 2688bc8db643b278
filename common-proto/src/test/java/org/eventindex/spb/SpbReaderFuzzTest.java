package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.eventindex.message.GuidInfo;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fuzz targets for {@link SpbReader} (and {@link SpbSummary}, which streams a whole file through it). Contract: any
 * byte sequence either reads to a verified end or fails with {@link SpbFormatException} naming the source, a problem
 * and an offset inside the stream; nothing else may escape (no runtime exception, no other IOException, no error).
 * <p>
 * Regression mode (every build) replays {@code SpbReaderFuzzTestInputs/<method>/}; {@code bin/fuzz} fuzzes.
 */
class SpbReaderFuzzTest {
    static final String SOURCE = "fuzz-input.ei.spb";
    // Small enough that a hostile length costs little, big enough to exercise the path for messages over the buffer.
    static final SpbLimits LIMITS = new SpbLimits(256 * 1024);

    /** The raw object bytes, as a consumer fetches them: mostly exercises the gzip layer. */
    @FuzzTest(maxDuration = "30s")
    void gzipStream(byte[] data) {
        if (data == null) {
            return; // Jazzer may pass null; a stream or message body never is
        }
        SpbSummary summary;
        try {
            summary = SpbSummary.scan(new ByteArrayInputStream(data), SOURCE, LIMITS);
        } catch (SpbFormatException e) {
            checkRejection(e, Long.MAX_VALUE);
            return;
        } catch (IOException e) {
            throw new AssertionError("an IOException other than SpbFormatException escaped: " + e, e);
        }
        assertEquals(data.length, summary.compressedBytes(), "compressed bytes of an accepted stream");
        checkSummary(summary);
    }

    /**
     * The uncompressed SPB stream, gzipped here so that the fuzzer works on the framing and protobuf layers. Every
     * record must lie inside the stream at increasing offsets, and an accepted stream must be consumed to its end.
     */
    @FuzzTest(maxDuration = "30s")
    void uncompressedStream(byte[] plain) {
        if (plain == null) {
            return; // Jazzer may pass null; a stream or message body never is
        }
        byte[] gzipped = SpbFixtures.Raw.gzip(plain);
        long lastOffset = -1;
        int records = 0;
        try (SpbReader reader = new SpbReader(new ByteArrayInputStream(gzipped), SOURCE, LIMITS)) {
            for (SpbRecord r = reader.next(); r != null; r = reader.next()) {
                assertTrue(r.offset() > lastOffset && r.offset() + 8 <= plain.length,
                        "record at offset " + r.offset() + " after " + lastOffset + " in " + plain.length + " bytes");
                lastOffset = r.offset();
                records++;
                // Every record costs at least its 8-byte header: more records than that means a loop.
                assertTrue(records <= plain.length / 8, "more records than the stream can hold");
            }
            assertEquals(plain.length, reader.uncompressedBytes(), "uncompressed bytes of an accepted stream");
            assertEquals(gzipped.length, reader.compressedBytes(), "compressed bytes of an accepted stream");
            assertTrue(records >= 2, "an accepted stream has a Header and a Trailer");
        } catch (SpbFormatException e) {
            checkRejection(e, plain.length);
        } catch (IOException e) {
            throw new AssertionError("an IOException other than SpbFormatException escaped: " + e, e);
        }
    }

    /**
     * Writer to reader: a file written by {@link SpbWriter} from structured fuzz input reads back as exactly the
     * messages written, or, when two GUIDs repeat or one is empty, or the content rules do not hold (neither of which
     * the writer checks), is refused with {@code BAD_CONTENT}.
     */
    @FuzzTest(maxDuration = "30s")
    void writerReaderRoundTrip(FuzzedDataProvider data) throws IOException {
        SpbFuzzFiles.Written file = SpbFuzzFiles.write(data);
        List<Object> read = new ArrayList<>();
        try (SpbReader reader = new SpbReader(new ByteArrayInputStream(file.gzipped()), SOURCE, LIMITS)) {
            for (SpbRecord r = reader.next(); r != null; r = reader.next()) {
                read.add(SpbFuzzFiles.message(r));
            }
            assertTrue(file.guidsValid(), "a file with an empty or repeated GUID was accepted: " + file.guids());
            assertTrue(file.contentValid(), "a file breaking the content rules was accepted: " + file.messages());
            assertEquals(file.messages(), read, "messages read back");
            assertEquals(file.gzipped().length, reader.compressedBytes(), "compressed bytes");
        } catch (SpbFormatException e) {
            if ((file.guidsValid() && file.contentValid()) || e.problem() != SpbFormatException.Problem.BAD_CONTENT) {
                fail("a file written by SpbWriter was refused: " + e.getMessage(), e);
            }
        }
    }

    static void checkRejection(SpbFormatException e, long streamLength) {
        assertNotNull(e.problem(), "problem");
        assertNotNull(e.getMessage(), "message");
        assertTrue(e.getMessage().startsWith(SOURCE + ": malformed SPB at uncompressed offset "),
                "message names the source: " + e.getMessage());
        assertTrue(e.offset() >= 0 && e.offset() <= streamLength,
                "offset " + e.offset() + " outside the stream of " + streamLength + " bytes: " + e.getMessage());
    }

    static void checkSummary(SpbSummary summary) {
        long events = 0;
        Set<String> guids = new HashSet<>();
        for (int i = 0; i < summary.guids().size(); i++) {
            GuidInfo g = summary.guids().get(i);
            assertEquals(i, g.fileno(), "fileno");
            assertTrue(!g.guid().isBlank() && guids.add(g.guid()), "GUID blank or repeated: " + g.guid());
            assertTrue(g.nuevents() >= 0 && g.nuevents() <= g.nevents(), "unique events of GUID " + g.guid());
            assertTrue(g.nevents() == 0 || !g.runevtRanges().isEmpty(), "run ranges of GUID " + g.guid());
            events += g.nevents();
        }
        assertEquals(events, summary.nevents(), "events over the GUIDs");
        assertTrue(summary.nuevents() <= summary.nevents(), "unique events");
    }
}
