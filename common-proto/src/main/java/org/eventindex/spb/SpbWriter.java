package org.eventindex.spb;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.Trailer_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

import static java.util.Objects.requireNonNull;

/**
 * Streaming writer of an EI SPB file. Enforces the same structure the reader checks and computes the counts:
 * {@link #endGuid(long)} writes EndGUID with the number of events since {@link #beginGuid}, {@link #finish(long)}
 * writes the Trailer with the totals and finishes the gzip stream.
 * <p>
 * Calls out of order throw {@link IllegalStateException}. Closing without {@link #finish(long)} leaves a valid gzip
 * stream without a Trailer, which {@link SpbReader} rejects as {@code TRUNCATED}. Not thread-safe.
 */
public final class SpbWriter implements Closeable {
    private static final int BUFFER_BYTES = 64 * 1024;

    private enum State { EXPECT_HEADER, BETWEEN_FILES, IN_FILE, FINISHED, CLOSED }

    private final GZIPOutputStream gzip;
    // Protobuf's own buffered stream: little-endian fixed32 for the framing, messages serialised straight into it.
    private final CodedOutputStream coded;
    private State state = State.EXPECT_HEADER;
    private long fileEvents;
    private long events;
    private long files;

    /** @param out receives the gzip stream; closed by {@link #close()} */
    public SpbWriter(OutputStream out) throws IOException {
        requireNonNull(out, "out is null");
        this.gzip = new GZIPOutputStream(out, BUFFER_BYTES);
        this.coded = CodedOutputStream.newInstance(gzip, BUFFER_BYTES);
        coded.writeFixed32NoTag(SpbReader.MAGIC);
        coded.writeFixed32NoTag(SpbReader.FILE_VERSION);
    }

    public void header(Header_p1 header) throws IOException {
        requireNonNull(header, "header is null");
        expect(State.EXPECT_HEADER, "HEADER");
        write(SpbMessageType.HEADER, header);
        state = State.BETWEEN_FILES;
    }

    public void beginGuid(BeginGUID_p1 begin) throws IOException {
        requireNonNull(begin, "begin is null");
        expect(State.BETWEEN_FILES, "BEGIN_GUID");
        write(SpbMessageType.BEGIN_GUID, begin);
        fileEvents = 0;
        state = State.IN_FILE;
    }

    public void triggerMenu(TriggerMenu_p1 menu) throws IOException {
        requireNonNull(menu, "menu is null");
        expect(State.IN_FILE, "TRIGGER_MENU");
        write(SpbMessageType.TRIGGER_MENU, menu);
    }

    public void event(EIEvent_p1 event) throws IOException {
        requireNonNull(event, "event is null");
        expect(State.IN_FILE, "EVENT");
        write(SpbMessageType.EVENT, event);
        fileEvents++;
        events++;
    }

    public void endGuid(long endProcTime) throws IOException {
        expect(State.IN_FILE, "END_GUID");
        write(SpbMessageType.END_GUID, EndGUID_p1.newBuilder()
                .setEndProcTime(endProcTime)
                .setNentries(uint32(fileEvents, "events in one GUID"))
                .build());
        files++;
        state = State.BETWEEN_FILES;
    }

    /** Writes the Trailer and finishes the gzip stream (the underlying stream stays open until close). */
    public void finish(long endProcTime) throws IOException {
        expect(State.BETWEEN_FILES, "TRAILER");
        write(SpbMessageType.TRAILER, Trailer_p1.newBuilder()
                .setEndProcTime(endProcTime)
                .setNentries(uint32(events, "events in the file"))
                .setNfiles(uint32(files, "files"))
                .build());
        coded.flush();
        gzip.finish();
        state = State.FINISHED;
    }

    /** Events written so far. */
    public long events() {
        return events;
    }

    /** Input files (BeginGUID..EndGUID blocks) completed so far. */
    public long files() {
        return files;
    }

    @Override
    public void close() throws IOException {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        try {
            coded.flush();
        } finally {
            gzip.close();
        }
    }

    private void write(SpbMessageType type, MessageLite message) throws IOException {
        coded.writeFixed32NoTag(type.code() << 8 | SpbMessageType.MESSAGE_VERSION);
        coded.writeFixed32NoTag(message.getSerializedSize());
        message.writeTo(coded);
    }

    private void expect(State wanted, String what) {
        if (state != wanted) {
            throw new IllegalStateException("cannot write " + what + " to an SPB stream in state " + state
                    + " (expected " + wanted + ")");
        }
    }

    private static int uint32(long value, String what) {
        if (value > 0xffffffffL) {
            throw new IllegalStateException("too many " + what + " for the uint32 SPB count: " + value);
        }
        return (int) value;
    }
}
