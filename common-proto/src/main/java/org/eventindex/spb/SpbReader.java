package org.eventindex.spb;

import com.google.protobuf.ByteString;
import com.google.protobuf.DiscardUnknownFieldsParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.Trailer_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbFormatException.Problem;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.Set;

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
 * <ul>
 *   <li>content: every string and repeated field within {@link SpbContentLimits}, the same for every reader;
 *       unknown fields are dropped as messages are parsed, so nothing kept from a message is larger than its known
 *       fields;</li>
 *   <li>valid content ({@link ContentRules}): UTF-8 strings, a dataset name in the Header, POOL tokens and coded
 *       trigger masks the loader can read, one run and one simulation flag for the stream's events, at least one
 *       input file. The producer's validation and the consumer's first read both read through here, so they accept
 *       the same objects and refuse the others with the same reason.</li>
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

    private static final int PREAMBLE_BYTES = 8;
    private static final int MESSAGE_HEADER_BYTES = 8;

    /**
     * The messages' parsers, in a class of their own: building them initialises protobuf and the messages' descriptors
     * (a tenth of a second in a fresh JVM), which then happens after the stream is opened and, inflating ahead, while
     * the inflating thread already runs. Unknown fields are dropped: a newer writer's fields have no use here, and a
     * hostile one's must not be kept.
     */
    private static final class Parsers {
        static final Parser<Header_p1> HEADER = DiscardUnknownFieldsParser.wrap(Header_p1.parser());
        static final Parser<BeginGUID_p1> BEGIN_GUID = DiscardUnknownFieldsParser.wrap(BeginGUID_p1.parser());
        static final Parser<TriggerMenu_p1> TRIGGER_MENU = DiscardUnknownFieldsParser.wrap(TriggerMenu_p1.parser());
        static final Parser<EIEvent_p1> EVENT = DiscardUnknownFieldsParser.wrap(EIEvent_p1.parser());
        static final Parser<EndGUID_p1> END_GUID = DiscardUnknownFieldsParser.wrap(EndGUID_p1.parser());
        static final Parser<Trailer_p1> TRAILER = DiscardUnknownFieldsParser.wrap(Trailer_p1.parser());
    }

    private enum State { EXPECT_HEADER, BETWEEN_FILES, IN_FILE, DONE }

    private final String source;
    private final SpbLimits limits;
    private final SpbInput in;

    private State state = State.EXPECT_HEADER;
    private final ContentRules rules = new ContentRules();
    /** Scans events given as messages (not in raw-event mode), for {@link ContentRules}; made on first use. */
    private EventScan checkScan;
    /** Set by {@link #rawEvents}: events come as {@link SpbRecord.RawEvent}, scanned here. */
    private EventScan scan;
    private final Set<String> guidsSeen = new HashSet<>();
    private String currentGuid;
    private long fileEvents;
    private long totalEvents;
    private long files;
    private int fileMenus;
    private long distinctMenuBytes;
    private final Set<ByteBuffer> menuDigests = new HashSet<>();

    /** @param gzipped the raw (compressed) stream; closed by {@link #close()}, or here if the preamble is bad */
    public SpbReader(InputStream gzipped, String source, SpbLimits limits) throws IOException {
        this(gzipped, source, limits, Inflation.INLINE);
    }

    /**
     * @param gzipped   the raw (compressed) stream; closed by {@link #close()}, or here if the preamble is bad
     * @param inflation where the stream is inflated: the reader accepts and refuses the same streams either way
     */
    public SpbReader(InputStream gzipped, String source, SpbLimits limits, Inflation inflation) throws IOException {
        this.source = requireNonNull(source, "source is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.in = new SpbInput(gzipped, source, limits, inflation);
        try {
            readPreamble();
        } catch (IOException | RuntimeException e) {
            try {
                in.close();
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
        long at = in.offset();
        int avail = in.ensure(MESSAGE_HEADER_BYTES);
        if (avail < MESSAGE_HEADER_BYTES) {
            if (avail == 0) {
                throw error(at, Problem.TRUNCATED, "stream ends without a Trailer (after " + totalEvents
                        + " events in " + files + " files" + (currentGuid == null ? "" : ", inside GUID "
                        + currentGuid) + ")");
            }
            throw error(at, Problem.TRUNCATED, "message header cut off after " + avail + " of 8 bytes");
        }
        int word = intLE(in.buf(), in.pos());
        int length = intLE(in.buf(), in.pos() + 4);
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
        in.skip(MESSAGE_HEADER_BYTES);
        return switch (type) {
            case HEADER -> onHeader(parse(Parsers.HEADER, type, length, at), at);
            case BEGIN_GUID -> onBeginGuid(parse(Parsers.BEGIN_GUID, type, length, at), at);
            case TRIGGER_MENU -> onTriggerMenu(length, at);
            case EVENT -> scan != null ? onRawEvent(length, at)
                    : onEvent(parse(Parsers.EVENT, type, length, at), at);
            case END_GUID -> onEndGuid(parse(Parsers.END_GUID, type, length, at), at);
            case TRAILER -> onTrailer(parse(Parsers.TRAILER, type, length, at), at);
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
        return in.offset();
    }

    /** Compressed (gzip) bytes read from the underlying stream so far: the object size once exhausted. */
    public long compressedBytes() {
        return in.compressedBytes();
    }

    /**
     * What the content rules learnt of the stream so far: the Header's dataset, and, once the events are read, their
     * run and whether they are simulated (the consumer checks that every object of a dataset agrees).
     */
    public ContentRules content() {
        return rules;
    }

    /** The name given for the stream in error messages. */
    public String source() {
        return source;
    }

    @Override
    public void close() throws IOException {
        in.close();
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

    private SpbRecord onHeader(Header_p1 header, long at) throws SpbFormatException {
        limit(at, "HEADER taskID", header.getTaskIDBytes(), SpbContentLimits.NAME_BYTES);
        limit(at, "HEADER jobID", header.getJobIDBytes(), SpbContentLimits.NAME_BYTES);
        limit(at, "HEADER inputDsName", header.getInputDsNameBytes(), SpbContentLimits.NAME_BYTES);
        valid(at, rules.header(header));
        state = State.BETWEEN_FILES;
        return new SpbRecord.Header(header, at);
    }

    private SpbRecord onBeginGuid(BeginGUID_p1 begin, long at) throws SpbFormatException {
        String guid = begin.getGuid();
        if (guid.isBlank()) {
            // blank, not only empty: the supervisor and the consumer refuse a message or signal with a blank GUID
            throw error(at, Problem.BAD_CONTENT, "BEGIN_GUID with an empty or blank guid (file " + files + ")");
        }
        limit(at, "BEGIN_GUID guid", begin.getGuidBytes(), SpbContentLimits.NAME_BYTES);
        limit(at, "BEGIN_GUID AMITag", begin.getAMITagBytes(), SpbContentLimits.NAME_BYTES);
        limit(at, "BEGIN_GUID trigStream", begin.getTrigStreamBytes(), SpbContentLimits.NAME_BYTES);
        limit(at, "BEGIN_GUID projName", begin.getProjNameBytes(), SpbContentLimits.NAME_BYTES);
        valid(at, rules.beginGuid(begin));
        if (guidsSeen.size() >= SpbContentLimits.FILES) {
            throw error(at, Problem.OVERSIZE, "more than " + SpbContentLimits.FILES + " input files (BEGIN_GUID)");
        }
        if (!guidsSeen.add(guid)) {
            throw error(at, Problem.BAD_CONTENT, "GUID " + guid + " appears twice");
        }
        state = State.IN_FILE;
        currentGuid = guid;
        fileEvents = 0;
        fileMenus = 0;
        return new SpbRecord.BeginGuid(begin, at);
    }

    private SpbRecord onTriggerMenu(int length, long at) throws IOException {
        if (fileMenus >= SpbContentLimits.MENUS_PER_FILE) {
            throw error(at, Problem.OVERSIZE, "GUID " + currentGuid + " has more than "
                    + SpbContentLimits.MENUS_PER_FILE + " TRIGGER_MENU messages");
        }
        fileMenus++;
        int off = in.take(SpbMessageType.TRIGGER_MENU, length);
        byte[] bytes = in.taken();
        TriggerMenu_p1 menu = parseTaken(Parsers.TRIGGER_MENU, SpbMessageType.TRIGGER_MENU, bytes, off, length, at);
        limit(at, "TRIGGER_MENU L1Menu", menu.getL1MenuBytes(), SpbContentLimits.MENU_BYTES);
        limit(at, "TRIGGER_MENU L2Menu", menu.getL2MenuBytes(), SpbContentLimits.MENU_BYTES);
        limit(at, "TRIGGER_MENU EFMenu", menu.getEFMenuBytes(), SpbContentLimits.MENU_BYTES);
        limit(at, "TRIGGER_MENU HLTMenu", menu.getHLTMenuBytes(), SpbContentLimits.MENU_BYTES);
        valid(at, rules.triggerMenu(menu, currentGuid));
        if (menuDigests.add(ByteBuffer.wrap(sha256(bytes, off, length)))) {
            distinctMenuBytes += length;
            if (distinctMenuBytes > SpbContentLimits.DISTINCT_MENU_BYTES) {
                throw error(at, Problem.OVERSIZE, "distinct TRIGGER_MENU messages of more than "
                        + SpbContentLimits.DISTINCT_MENU_BYTES + " bytes in all (" + menuDigests.size()
                        + " menus, " + distinctMenuBytes + " bytes)");
            }
        }
        return new SpbRecord.TriggerMenu(menu, at);
    }

    private SpbRecord onEvent(EIEvent_p1 event, long at) throws SpbFormatException {
        limit(at, "EVENT L1PassedTrigMask", event.getL1PassedTrigMaskBytes().size(), SpbContentLimits.L1_MASK_BYTES);
        limit(at, "EVENT L2PassedTrigMask", event.getL2PassedTrigMaskBytes().size(), SpbContentLimits.HLT_MASK_BYTES);
        limit(at, "EVENT EFPassedTrigMask", event.getEFPassedTrigMaskBytes().size(), SpbContentLimits.HLT_MASK_BYTES);
        tokenCount(at, event.getEitokenCount());
        for (EItoken_p1 t : event.getEitokenList()) {
            limit(at, "EVENT eitoken name", t.getNameBytes().size(), SpbContentLimits.NAME_BYTES);
            limit(at, "EVENT eitoken token", t.getTokenBytes().size(), SpbContentLimits.TOKEN_BYTES);
        }
        // the rules read events in place: this one's canonical bytes (the parser dropped unknown fields)
        if (checkScan == null) {
            checkScan = new EventScan();
        }
        byte[] bytes = event.toByteArray();
        try {
            checkScan.scanCanonical(bytes, 0, bytes.length);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a parsed event does not parse again", e);
        }
        valid(at, rules.event(checkScan, currentGuid));
        countEvent(at);
        return new SpbRecord.Event(event, at);
    }

    private SpbRecord onRawEvent(int length, long at) throws IOException {
        int off = in.take(SpbMessageType.EVENT, length);
        byte[] bytes = in.taken();
        try {
            scan.scanCanonical(bytes, off, length);
        } catch (InvalidProtocolBufferException e) {
            throw error(at, Problem.BAD_PROTOBUF, "cannot parse " + SpbMessageType.EVENT + " of " + length
                    + " bytes: " + e.getMessage(), e);
        }
        limit(at, "EVENT L1PassedTrigMask", scan.l1MaskLen, SpbContentLimits.L1_MASK_BYTES);
        limit(at, "EVENT L2PassedTrigMask", scan.l2MaskLen, SpbContentLimits.HLT_MASK_BYTES);
        limit(at, "EVENT EFPassedTrigMask", scan.efMaskLen, SpbContentLimits.HLT_MASK_BYTES);
        tokenCount(at, scan.tokenCount);
        for (int i = 0; i < scan.tokenCount; i++) {
            limit(at, "EVENT eitoken name", scan.nameLen[i], SpbContentLimits.NAME_BYTES);
            limit(at, "EVENT eitoken token", scan.tokenLen[i], SpbContentLimits.TOKEN_BYTES);
        }
        valid(at, rules.event(scan, currentGuid));
        countEvent(at);
        return new SpbRecord.RawEvent(scan, at);
    }

    private void limit(long at, String field, ByteString value, int max) throws SpbFormatException {
        limit(at, field, value.size(), max);
    }

    private void limit(long at, String field, int bytes, int max) throws SpbFormatException {
        if (bytes > max) {
            throw error(at, Problem.OVERSIZE, field + (currentGuid == null ? "" : " (GUID " + currentGuid + ")")
                    + " is " + bytes + " bytes, more than the limit of " + max);
        }
    }

    /** A breach of the content rules ({@code problem} non-null) as {@link Problem#BAD_CONTENT}. */
    private void valid(long at, String problem) throws SpbFormatException {
        if (problem != null) {
            throw error(at, Problem.BAD_CONTENT, problem);
        }
    }

    private void tokenCount(long at, int count) throws SpbFormatException {
        if (count > SpbContentLimits.TOKENS_PER_EVENT) {
            throw error(at, Problem.OVERSIZE, "EVENT (GUID " + currentGuid + ") has " + count
                    + " eitoken entries, more than the limit of " + SpbContentLimits.TOKENS_PER_EVENT);
        }
    }

    private static byte[] sha256(byte[] bytes, int off, int len) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(bytes, off, len);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
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
        valid(at, rules.trailer(files));
        long end = in.offset();
        if (in.ensure(1) > 0) {
            throw error(end, Problem.BAD_ORDER, "data after the TRAILER");
        }
        state = State.DONE;
        return new SpbRecord.Trailer(trailer, at);
    }

    private <T> T parse(Parser<T> parser, SpbMessageType type, int length, long at) throws IOException {
        int off = in.take(type, length);
        return parseTaken(parser, type, in.taken(), off, length, at);
    }

    private <T> T parseTaken(Parser<T> parser, SpbMessageType type, byte[] bytes, int off, int length, long at)
            throws SpbFormatException {
        try {
            return parser.parseFrom(bytes, off, length);
        } catch (InvalidProtocolBufferException e) {
            throw error(at, Problem.BAD_PROTOBUF, "cannot parse " + type + " of " + length + " bytes: "
                    + e.getMessage(), e);
        }
    }

    private void readPreamble() throws IOException {
        int avail = in.ensure(PREAMBLE_BYTES);
        if (avail == 0) {
            throw error(0, Problem.EMPTY, "the gzip stream holds no data");
        }
        if (avail < 4) {
            throw error(0, Problem.TRUNCATED, "magic number cut off after " + avail + " bytes");
        }
        int magic = intLE(in.buf(), in.pos());
        if (magic != MAGIC) {
            throw error(0, Problem.BAD_MAGIC, String.format("magic 0x%08x, expected 0x%08x", magic, MAGIC));
        }
        if (avail < PREAMBLE_BYTES) {
            throw error(4, Problem.TRUNCATED, "file version cut off after " + (avail - 4) + " bytes");
        }
        int version = intLE(in.buf(), in.pos() + 4);
        if (version != FILE_VERSION) {
            throw error(4, Problem.BAD_VERSION, "file version " + Integer.toUnsignedString(version)
                    + ", only " + FILE_VERSION + " is known");
        }
        in.skip(PREAMBLE_BYTES);
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
