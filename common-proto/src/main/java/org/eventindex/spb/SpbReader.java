package org.eventindex.spb;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.Trailer_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbFormatException.Problem;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

import static java.util.Objects.requireNonNull;

/**
 * Streaming reader of an EI SPB file (gzip; magic {@code 0x6e56c8c7}; version 1; typed length-prefixed protobuf
 * messages). Validates as it reads, never holding more than one message in memory:
 * <ul>
 *   <li>magic and version, gzip integrity, known types and message version, lengths within the stream and under
 *       {@link SpbLimits#maxMessageBytes()};</li>
 *   <li>structure: Header first; then per input file BeginGUID, optional TriggerMenu, EIEvent*, EndGUID; then
 *       Trailer last and nothing after it;</li>
 *   <li>counts: EndGUID.nentries equals the events since its BeginGUID; Trailer.nentries / nfiles equal the
 *       totals.</li>
 * </ul>
 * Any violation throws {@link SpbFormatException} naming the source and offset.
 * <p>
 * A TriggerMenu may appear anywhere between BeginGUID and EndGUID (not only first): the experiment's writer emits a
 * new menu whenever the trigger keys change within a file. Each BeginGUID must name a distinct, non-empty GUID,
 * because consumers select data per GUID.
 * <p>
 * Not thread-safe; one reader per stream.
 */
public final class SpbReader implements Closeable {
    /** The first uint32 (little-endian) of the uncompressed stream. */
    public static final int MAGIC = 0x6e56c8c7;
    /** The only SPB file version. */
    public static final int FILE_VERSION = 1;

    private static final int BUFFER_BYTES = 64 * 1024;
    private static final int PREAMBLE_BYTES = 8;
    private static final int MESSAGE_HEADER_BYTES = 8;

    private enum State { EXPECT_HEADER, BETWEEN_FILES, IN_FILE, DONE }

    private final String source;
    private final SpbLimits limits;
    private final CountingInputStream raw;
    private final InputStream inflated;
    // Own buffer instead of BufferedInputStream: most messages are parsed in place, with no copy and no allocation.
    private final byte[] buf = new byte[BUFFER_BYTES];
    private int pos;
    private int lim;
    private long bufStart;
    private byte[] spill = new byte[0];

    private State state = State.EXPECT_HEADER;
    /** Set by {@link #rawEvents}: events come as {@link SpbRecord.RawEvent}, scanned here. */
    private EventScan scan;
    /** The array holding the body consumed by the last {@link #take}. */
    private byte[] taken;
    private final Set<String> guidsSeen = new HashSet<>();
    private String currentGuid;
    private long fileEvents;
    private long inflatedBytes;
    private long totalEvents;
    private long files;

    /** @param gzipped the raw (compressed) stream; closed by {@link #close()}, or here if the preamble is bad */
    public SpbReader(InputStream gzipped, String source, SpbLimits limits) throws IOException {
        this.source = requireNonNull(source, "source is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.raw = new CountingInputStream(requireNonNull(gzipped, "gzipped is null"));
        try {
            this.inflated = openGzip();
            readPreamble();
        } catch (IOException | RuntimeException e) {
            try {
                raw.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    public static SpbReader open(Path file, SpbLimits limits) throws IOException {
        requireNonNull(file, "file is null");
        return new SpbReader(Files.newInputStream(file), file.toString(), limits);
    }

    /** @return the next record, or null after the Trailer has been read and the stream is verified to end */
    public SpbRecord next() throws IOException {
        if (state == State.DONE) {
            return null;
        }
        long at = offset();
        int avail = ensure(MESSAGE_HEADER_BYTES);
        if (avail < MESSAGE_HEADER_BYTES) {
            if (avail == 0) {
                throw error(at, Problem.TRUNCATED, "stream ends without a Trailer (after " + totalEvents
                        + " events in " + files + " files" + (currentGuid == null ? "" : ", inside GUID "
                        + currentGuid) + ")");
            }
            throw error(at, Problem.TRUNCATED, "message header cut off after " + avail + " of 8 bytes");
        }
        int word = intLE(buf, pos);
        int length = intLE(buf, pos + 4);
        int typeCode = word >>> 8;
        SpbMessageType type = SpbMessageType.ofCode(typeCode);
        if (type == null) {
            throw error(at, Problem.UNKNOWN_TYPE, String.format("unknown message type %d (word 0x%08x)",
                    typeCode, word));
        }
        int msgver = word & 0xff;
        if (msgver != SpbMessageType.MESSAGE_VERSION) {
            throw error(at, Problem.BAD_MESSAGE_VERSION, type + " message version " + msgver + ", only "
                    + SpbMessageType.MESSAGE_VERSION + " is known");
        }
        // Checked before allocating or reading anything: a corrupt or hostile length must not cost memory.
        if (length < 0 || length > limits.maxMessageBytes()) {
            throw error(at, Problem.OVERSIZE, type + " declares " + Integer.toUnsignedString(length)
                    + " bytes, more than the limit of " + limits.maxMessageBytes());
        }
        checkOrder(type, at);
        pos += MESSAGE_HEADER_BYTES;
        return switch (type) {
            case HEADER -> onHeader(parse(Header_p1.parser(), type, length, at), at);
            case BEGIN_GUID -> onBeginGuid(parse(BeginGUID_p1.parser(), type, length, at), at);
            case TRIGGER_MENU -> new SpbRecord.TriggerMenu(parse(TriggerMenu_p1.parser(), type, length, at), at);
            case EVENT -> scan != null ? onRawEvent(length, at)
                    : onEvent(parse(EIEvent_p1.parser(), type, length, at), at);
            case END_GUID -> onEndGuid(parse(EndGUID_p1.parser(), type, length, at), at);
            case TRAILER -> onTrailer(parse(Trailer_p1.parser(), type, length, at), at);
        };
    }

    /**
     * From now on, events are returned as {@link SpbRecord.RawEvent}: their canonical serialization, scanned in place
     * without building a message ({@link EventScan}). An event that is not in canonical form is parsed (a malformed
     * one is refused exactly as without this mode) and serialized again, without unknown fields. For readers that
     * store events rather than look at them.
     *
     * @return this reader
     */
    public SpbReader rawEvents() {
        if (scan == null) {
            scan = new EventScan();
        }
        return this;
    }

    /** Uncompressed bytes consumed so far (the SPB {@code usize} once the stream is exhausted). */
    public long uncompressedBytes() {
        return offset();
    }

    /** Compressed (gzip) bytes read from the underlying stream so far: the object size once exhausted. */
    public long compressedBytes() {
        return raw.count();
    }

    /** The name given for the stream in error messages. */
    public String source() {
        return source;
    }

    @Override
    public void close() throws IOException {
        inflated.close();
    }

    private void checkOrder(SpbMessageType type, long at) throws SpbFormatException {
        boolean ok = switch (type) {
            case HEADER -> state == State.EXPECT_HEADER;
            case BEGIN_GUID, TRAILER -> state == State.BETWEEN_FILES;
            case TRIGGER_MENU, EVENT, END_GUID -> state == State.IN_FILE;
        };
        if (ok) {
            return;
        }
        String detail = switch (state) {
            case EXPECT_HEADER -> "first message must be HEADER, found " + type;
            case BETWEEN_FILES -> type == SpbMessageType.HEADER ? "second HEADER"
                    : type + " outside BEGIN_GUID/END_GUID (expected BEGIN_GUID or TRAILER)";
            case IN_FILE -> type + " inside GUID " + currentGuid + " (missing END_GUID)";
            case DONE -> type + " after TRAILER";
        };
        throw error(at, Problem.BAD_ORDER, detail);
    }

    private SpbRecord onHeader(Header_p1 header, long at) {
        state = State.BETWEEN_FILES;
        return new SpbRecord.Header(header, at);
    }

    private SpbRecord onBeginGuid(BeginGUID_p1 begin, long at) throws SpbFormatException {
        String guid = begin.getGuid();
        if (guid.isEmpty()) {
            throw error(at, Problem.BAD_CONTENT, "BEGIN_GUID with an empty guid (file " + files + ")");
        }
        if (!guidsSeen.add(guid)) {
            throw error(at, Problem.BAD_CONTENT, "GUID " + guid + " appears twice");
        }
        state = State.IN_FILE;
        currentGuid = guid;
        fileEvents = 0;
        return new SpbRecord.BeginGuid(begin, at);
    }

    private SpbRecord onEvent(EIEvent_p1 event, long at) throws SpbFormatException {
        countEvent(at);
        return new SpbRecord.Event(event, at);
    }

    private SpbRecord onRawEvent(int length, long at) throws IOException {
        int off = take(SpbMessageType.EVENT, length);
        byte[] bytes = taken;
        try {
            scan.scanCanonical(bytes, off, length);
        } catch (InvalidProtocolBufferException e) {
            throw error(at, Problem.BAD_PROTOBUF, "cannot parse " + SpbMessageType.EVENT + " of " + length
                    + " bytes: " + e.getMessage(), e);
        }
        countEvent(at);
        return new SpbRecord.RawEvent(scan, at);
    }

    private void countEvent(long at) throws SpbFormatException {
        if (fileEvents >= limits.maxEventsPerFile()) {
            throw error(at, Problem.OVERSIZE, "GUID " + currentGuid + " has more than " + limits.maxEventsPerFile()
                    + " events");
        }
        fileEvents++;
        totalEvents++;
    }

    private SpbRecord onEndGuid(EndGUID_p1 end, long at) throws SpbFormatException {
        long declared = Integer.toUnsignedLong(end.getNentries());
        if (declared != fileEvents) {
            throw error(at, Problem.COUNT_MISMATCH, "END_GUID of " + currentGuid + " declares " + declared
                    + " events, the file has " + fileEvents);
        }
        state = State.BETWEEN_FILES;
        currentGuid = null;
        files++;
        return new SpbRecord.EndGuid(end, at);
    }

    private SpbRecord onTrailer(Trailer_p1 trailer, long at) throws IOException {
        long nentries = Integer.toUnsignedLong(trailer.getNentries());
        long nfiles = Integer.toUnsignedLong(trailer.getNfiles());
        if (nentries != totalEvents) {
            throw error(at, Problem.COUNT_MISMATCH, "TRAILER declares " + nentries + " events, the stream has "
                    + totalEvents);
        }
        if (nfiles != files) {
            throw error(at, Problem.COUNT_MISMATCH, "TRAILER declares " + nfiles + " files, the stream has "
                    + files);
        }
        long end = offset();
        if (ensure(1) > 0) {
            throw error(end, Problem.BAD_ORDER, "data after the TRAILER");
        }
        state = State.DONE;
        return new SpbRecord.Trailer(trailer, at);
    }

    private <T> T parse(Parser<T> parser, SpbMessageType type, int length, long at) throws IOException {
        int off = take(type, length);
        try {
            return parser.parseFrom(taken, off, length);
        } catch (InvalidProtocolBufferException e) {
            throw error(at, Problem.BAD_PROTOBUF, "cannot parse " + type + " of " + length + " bytes: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Consumes the next {@code length} bytes (a message's body) and returns their offset in {@link #taken}: the
     * buffer itself when they fit, no copy, else the spill array.
     */
    private int take(SpbMessageType type, int length) throws IOException {
        if (length <= buf.length) {
            int avail = ensure(length);
            if (avail < length) {
                throw error(bufStart + lim, Problem.TRUNCATED, type + " of " + length + " bytes cut off after " + avail
                        + " bytes");
            }
            taken = buf;
            int off = pos;
            pos += length;
            return off;
        }
        taken = readLarge(type, length);
        return 0;
    }

    /** Reads a message bigger than the buffer into the (grown, reused) spill array. */
    private byte[] readLarge(SpbMessageType type, int length) throws IOException {
        if (spill.length < length) {
            spill = new byte[length];
        }
        int have = lim - pos;
        System.arraycopy(buf, pos, spill, 0, have);
        long start = offset();
        bufStart = start + have;
        pos = 0;
        lim = 0;
        while (have < length) {
            int n = readInflated(spill, have, length - have);
            if (n < 0) {
                throw error(bufStart, Problem.TRUNCATED, type + " of " + length + " bytes cut off after "
                        + have + " bytes");
            }
            have += n;
            bufStart += n;
        }
        return spill;
    }

    /** Makes up to {@code n <= buf.length} bytes available at {@code pos}; fewer only at end of stream. */
    private int ensure(int n) throws IOException {
        int avail = lim - pos;
        if (avail >= n) {
            return avail;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, avail);
            bufStart += pos;
            pos = 0;
            lim = avail;
        }
        while (lim < n) {
            int r = readInflated(buf, lim, buf.length - lim);
            if (r < 0) {
                break;
            }
            lim += r;
        }
        return lim - pos;
    }

    private int readInflated(byte[] into, int off, int len) throws IOException {
        try {
            int n = inflated.read(into, off, len);
            // Checked on every read: a gzip bomb inflates to at most the limit plus one buffer before it stops.
            if (n > 0 && (inflatedBytes += n) > limits.maxInflatedBytes()) {
                throw error(inflatedBytes - n, Problem.OVERSIZE, "inflates to more than " + limits.maxInflatedBytes()
                        + " bytes (from " + raw.count() + " compressed bytes)");
            }
            return n;
        } catch (EOFException e) {
            throw error(bufStart + lim, Problem.TRUNCATED, "gzip stream ends early after " + raw.count()
                    + " compressed bytes (file cut off?)", e);
        } catch (ZipException e) {
            throw error(bufStart + lim, Problem.BAD_GZIP, "corrupt gzip data: " + e.getMessage(), e);
        }
    }

    private InputStream openGzip() throws IOException {
        try {
            return new GZIPInputStream(raw, BUFFER_BYTES);
        } catch (EOFException e) {
            if (raw.count() == 0) {
                throw error(0, Problem.EMPTY, "the file is empty (0 bytes)");
            }
            throw error(0, Problem.TRUNCATED, "gzip header cut off after " + raw.count() + " bytes", e);
        } catch (ZipException e) {
            throw error(0, Problem.BAD_GZIP, "not a gzip stream: " + e.getMessage(), e);
        }
    }

    private void readPreamble() throws IOException {
        int avail = ensure(PREAMBLE_BYTES);
        if (avail == 0) {
            throw error(0, Problem.EMPTY, "the gzip stream holds no data");
        }
        if (avail < 4) {
            throw error(0, Problem.TRUNCATED, "magic number cut off after " + avail + " bytes");
        }
        int magic = intLE(buf, 0);
        if (magic != MAGIC) {
            throw error(0, Problem.BAD_MAGIC, String.format("magic 0x%08x, expected 0x%08x", magic, MAGIC));
        }
        if (avail < PREAMBLE_BYTES) {
            throw error(4, Problem.TRUNCATED, "file version cut off after " + (avail - 4) + " bytes");
        }
        int version = intLE(buf, 4);
        if (version != FILE_VERSION) {
            throw error(4, Problem.BAD_VERSION, "file version " + Integer.toUnsignedString(version)
                    + ", only " + FILE_VERSION + " is known");
        }
        pos = PREAMBLE_BYTES;
    }

    private long offset() {
        return bufStart + pos;
    }

    private SpbFormatException error(long at, Problem problem, String detail) {
        return new SpbFormatException(source, at, problem, detail);
    }

    private SpbFormatException error(long at, Problem problem, String detail, Throwable cause) {
        return new SpbFormatException(source, at, problem, detail, cause);
    }

    static int intLE(byte[] b, int i) {
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff) << 16 | (b[i + 3] & 0xff) << 24;
    }
}
