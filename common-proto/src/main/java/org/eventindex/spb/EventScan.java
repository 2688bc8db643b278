package org.eventindex.spb;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DiscardUnknownFieldsParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;

import java.nio.charset.StandardCharsets;

/**
 * Reads the fields of a serialized {@code EIEvent_p1} in place, without building a message: numbers as values,
 * strings and tokens as offsets into the scanned array. One instance is filled again for every event.
 * <p>
 * {@link #scan} accepts only the <em>canonical</em> serialization: exactly the bytes protobuf-java's
 * {@code toByteArray()} writes for the message those bytes parse to (fields in number order, each singular field
 * once, minimal varints, no unknown fields, every required field present, booleans as 0 or 1). For any other input,
 * well-formed or not, it returns false and the caller parses with protobuf (and re-serializes, when it needs the
 * canonical bytes). So bytes accepted here can be stored as they are wherever the canonical serialization is
 * required (the consolidated file's row checksum is defined over it), and what is read here is what protobuf would
 * read. {@code EventScanTest} and {@code EventScanFuzzTest} check both claims against protobuf.
 */
public final class EventScan extends EventFields {
    // Field numbers of EIEvent_p1 (event.proto).
    private static final int RUN = 1;
    private static final int EVENT = 2;
    private static final int LUMI = 3;
    private static final int TIME_STAMP = 4;
    private static final int TIME_STAMP_NS = 5;
    private static final int BCID = 6;
    private static final int EXTENDED_L1 = 7;
    private static final int SIMULATION = 8;
    private static final int CALIBRATION = 9;
    private static final int TEST_BEAM = 10;
    private static final int L1_MASK = 11;
    private static final int L2_MASK = 12;
    private static final int EF_MASK = 13;
    private static final int SMK = 14;
    private static final int HLTPSK = 15;
    private static final int L1PSK = 16;
    private static final int MC_WEIGHT = 17;
    private static final int MC_CHANNEL = 18;
    private static final int TOKEN = 20;
    /** Fields 1-6 and 8-10 are required. */
    private static final int REQUIRED = 0b111_0111_1110;
    private static final int VARINT = 0;
    private static final int FIXED32 = 5;
    private static final int BYTES = 2;
    /** Fields 1-10 at their longest: a one-byte tag and a varint of 5 bytes per uint32, of 10 for the event number. */
    static final int FAST_HEAD = 6 * 6 + 11 + 3 * 2;
    private static final Parser<EIEvent_p1> CANONICAL_PARSER = DiscardUnknownFieldsParser.wrap(EIEvent_p1.parser());

    private byte[] buf;
    private int start;
    private int end;
    private int pos;
    private long value;
    private byte[] canonical = new byte[0];

    /** Offset and length in {@link #buf()} of each coded mask; offset -1 when absent. */
    public int l1MaskOff;
    public int l1MaskLen;
    public int l2MaskOff;
    public int l2MaskLen;
    public int efMaskOff;
    public int efMaskLen;
    /** Tokens {@code 0..tokenCount-1}: offset and length of the stream name and of the POOL token. */
    public int tokenCount;
    public int[] nameOff = new int[8];
    public int[] nameLen = new int[8];
    public int[] tokenOff = new int[8];
    public int[] tokenLen = new int[8];

    /**
     * Scans {@code bytes[off, off + len)}. On false the fields are unspecified.
     *
     * @return whether the bytes are a canonical {@code EIEvent_p1} serialization
     */
    public boolean scan(byte[] bytes, int off, int len) {
        begin(bytes, off, len);
        if (fast()) {
            return true;
        }
        begin(bytes, off, len);
        return general();
    }

    /** {@link #scan} by the general path alone (tests compare the two paths). */
    boolean scanGeneral(byte[] bytes, int off, int len) {
        begin(bytes, off, len);
        return general();
    }

    /** {@link #scan} by the fast path alone: true only for what it takes; false says nothing about the bytes. */
    boolean scanFast(byte[] bytes, int off, int len) {
        begin(bytes, off, len);
        return fast();
    }

    private void begin(byte[] bytes, int off, int len) {
        buf = bytes;
        start = off;
        pos = off;
        end = off + len;
        clearFields();
        l1MaskOff = l2MaskOff = efMaskOff = -1;
        l1MaskLen = l2MaskLen = efMaskLen = 0;
        tokenCount = 0;
    }

    /** Any field order, any tag: what is not canonical is refused here. */
    private boolean general() {
        int seen = 0;
        int last = 0;
        while (pos < end) {
            long tag = uint32();
            if (tag < 0) {
                return false;
            }
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            if (field < last || (field == last && field != TOKEN)) {
                return false;
            }
            last = field;
            if (!field(field, wire)) {
                return false;
            }
            if (field < 32) {
                seen |= 1 << field;
            }
        }
        return pos == end && (seen & REQUIRED) == REQUIRED;
    }

    /**
     * The fields in the only order a canonical event has them, each tag compared with its one canonical byte (or two
     * bytes), without the general path's dispatch, order and presence bookkeeping; fields 1-10 (at most
     * {@value #FAST_HEAD} bytes) read after one bounds check. Takes only what {@link #general} takes, with the same
     * values (the same decoders); on anything else (a field out of order, a short event) it returns false and
     * {@link #scan} runs the general path from the start, which decides.
     */
    private boolean fast() {
        byte[] b = buf;
        if (end - pos < FAST_HEAD) {
            return false;
        }
        long v = tagged(RUN);
        if (v < 0 || b[pos] != EVENT << 3) {
            return false;
        }
        runNumber = (int) v;
        pos++;
        if (!u64()) {
            return false;
        }
        eventNumber = value;
        if ((v = tagged(LUMI)) < 0) {
            return false;
        }
        lumiBlock = (int) v;
        if ((v = tagged(TIME_STAMP)) < 0) {
            return false;
        }
        timeStamp = (int) v;
        if ((v = tagged(TIME_STAMP_NS)) < 0) {
            return false;
        }
        timeStampNSOffset = (int) v;
        if ((v = tagged(BCID)) < 0) {
            return false;
        }
        bcid = (int) v;
        if (b[pos] == EXTENDED_L1 << 3) {
            if ((v = tagged(EXTENDED_L1)) < 0) {
                return false;
            }
            hasExtendedLevel1ID = true;
            extendedLevel1ID = (int) v;
        }
        int p = pos;
        if (b[p] != SIMULATION << 3 || b[p + 2] != CALIBRATION << 3 || b[p + 4] != TEST_BEAM << 3
                || ((b[p + 1] | b[p + 3] | b[p + 5]) & 0xfe) != 0) {
            return false;
        }
        isSimulation = b[p + 1] == 1;
        isCalibration = b[p + 3] == 1;
        isTestBeam = b[p + 5] == 1;
        pos = p + 6;
        // from here on, bounds checked per field; each field decoded here rather than by field(), which is too
        // large to be inlined: a call and its switch per field cost a third of the scan (decision 0083)
        if (pos < end && b[pos] == (L1_MASK << 3 | BYTES)) {
            pos++;
            if ((l1MaskLen = lengthPrefix()) < 0) {
                return false;
            }
            l1MaskOff = pos;
            pos += l1MaskLen;
        }
        if (pos < end && b[pos] == (L2_MASK << 3 | BYTES)) {
            pos++;
            if ((l2MaskLen = lengthPrefix()) < 0) {
                return false;
            }
            l2MaskOff = pos;
            pos += l2MaskLen;
        }
        if (pos < end && b[pos] == (EF_MASK << 3 | BYTES)) {
            pos++;
            if ((efMaskLen = lengthPrefix()) < 0) {
                return false;
            }
            efMaskOff = pos;
            pos += efMaskLen;
        }
        if (pos < end && b[pos] == SMK << 3) {
            pos++;
            if ((v = uint32()) < 0) {
                return false;
            }
            hasSmk = true;
            smk = (int) v;
        }
        if (pos < end && b[pos] == HLTPSK << 3) {
            pos++;
            if ((v = uint32()) < 0) {
                return false;
            }
            hasHltpsk = true;
            hltpsk = (int) v;
        }
        if (twoByteTag(L1PSK, VARINT)) {
            pos += 2;
            if ((v = uint32()) < 0) {
                return false;
            }
            hasL1psk = true;
            l1psk = (int) v;
        }
        if (twoByteTag(MC_WEIGHT, FIXED32)) {
            pos += 2;
            if (!weight()) {
                return false;
            }
        }
        if (twoByteTag(MC_CHANNEL, VARINT)) {
            pos += 2;
            if ((v = uint32()) < 0) {
                return false;
            }
            hasMcChannelNumber = true;
            mcChannelNumber = (int) v;
        }
        while (twoByteTag(TOKEN, BYTES)) {
            pos += 2;
            int n = lengthPrefix();
            if (n < 0 || !tokenMessage(pos + n)) {
                return false;
            }
        }
        return pos == end;
    }

    /** The uint32 value of a field whose one-byte tag (wire type varint) is at {@link #pos}, or -1. */
    private long tagged(int field) {
        if (buf[pos] != field << 3) {
            return -1;
        }
        pos++;
        return u32();
    }

    /** Whether the two-byte tag of {@code field} (16 to 31) with wire type {@code wire} is at {@link #pos}. */
    private boolean twoByteTag(int field, int wire) {
        return end - pos >= 2 && buf[pos] == (byte) (field << 3 | wire | 0x80) && buf[pos + 1] == 1;
    }

    private boolean field(int field, int wire) {
        switch (field) {
            case RUN, LUMI, TIME_STAMP, TIME_STAMP_NS, BCID, EXTENDED_L1, SMK, HLTPSK, L1PSK, MC_CHANNEL -> {
                long v = wire == VARINT ? uint32() : -1;
                if (v < 0) {
                    return false;
                }
                set(field, (int) v);
                return true;
            }
            case EVENT -> {
                if (wire != VARINT) {
                    return false;
                }
                if (!(end - pos >= 10 ? u64() : varint(10))) {
                    return false;
                }
                eventNumber = value;
                return true;
            }
            case SIMULATION, CALIBRATION, TEST_BEAM -> {
                if (wire != VARINT || pos >= end || (buf[pos] & 0xff) > 1) {
                    return false;
                }
                boolean b = buf[pos++] == 1;
                if (field == SIMULATION) {
                    isSimulation = b;
                } else if (field == CALIBRATION) {
                    isCalibration = b;
                } else {
                    isTestBeam = b;
                }
                return true;
            }
            case L1_MASK, L2_MASK, EF_MASK -> {
                int n = wire == BYTES ? lengthPrefix() : -1;
                if (n < 0) {
                    return false;
                }
                if (field == L1_MASK) {
                    l1MaskOff = pos;
                    l1MaskLen = n;
                } else if (field == L2_MASK) {
                    l2MaskOff = pos;
                    l2MaskLen = n;
                } else {
                    efMaskOff = pos;
                    efMaskLen = n;
                }
                pos += n;
                return true;
            }
            case MC_WEIGHT -> {
                return wire == FIXED32 && weight();
            }
            case TOKEN -> {
                int n = wire == BYTES ? lengthPrefix() : -1;
                return n >= 0 && tokenMessage(pos + n);
            }
            default -> {
                return false;
            }
        }
    }

    /**
     * Scans {@code bytes[off, off + len)} if they are canonical; otherwise parses them with protobuf, serializes the
     * event again (into an array of this scanner's, without unknown fields: a newer producer's fields have no column
     * and no place in the canonical form the consolidated file's checksum covers) and scans that.
     *
     * @throws InvalidProtocolBufferException when the bytes are not an {@code EIEvent_p1}
     */
    public void scanCanonical(byte[] bytes, int off, int len) throws InvalidProtocolBufferException {
        if (scan(bytes, off, len)) {
            return;
        }
        EIEvent_p1 event = CANONICAL_PARSER.parseFrom(bytes, off, len);
        int n = event.getSerializedSize();
        if (canonical.length < n) {
            canonical = new byte[Math.max(n, 2 * canonical.length)];
        }
        try {
            event.writeTo(CodedOutputStream.newInstance(canonical, 0, n));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("serializing an event into an array of its size failed", e);
        }
        if (!scan(canonical, 0, n)) {
            throw new IllegalStateException("protobuf's serialization of an event is not accepted by EventScan");
        }
    }

    private void set(int field, int v) {
        switch (field) {
            case RUN -> runNumber = v;
            case LUMI -> lumiBlock = v;
            case TIME_STAMP -> timeStamp = v;
            case TIME_STAMP_NS -> timeStampNSOffset = v;
            case BCID -> bcid = v;
            case EXTENDED_L1 -> {
                hasExtendedLevel1ID = true;
                extendedLevel1ID = v;
            }
            case SMK -> {
                hasSmk = true;
                smk = v;
            }
            case HLTPSK -> {
                hasHltpsk = true;
                hltpsk = v;
            }
            case L1PSK -> {
                hasL1psk = true;
                l1psk = v;
            }
            default -> {
                hasMcChannelNumber = true;
                mcChannelNumber = v;
            }
        }
    }

    /** The fixed32 mcEventWeight at {@link #pos} (its tag read). */
    private boolean weight() {
        if (end - pos < 4) {
            return false;
        }
        int bits = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16
                | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        if (Float.floatToRawIntBits(Float.intBitsToFloat(bits)) != bits) {
            // protobuf reads a float with intBitsToFloat and writes it with floatToRawIntBits: a NaN whose
            // payload does not survive that (on some platforms) is written back differently, so these bytes
            // are not canonical; scanCanonical takes protobuf's bytes instead
            return false;
        }
        hasMcEventWeight = true;
        mcEventWeight = Float.intBitsToFloat(bits);
        return true;
    }

    /** An {@code EItoken_p1} ending at {@code stop}: exactly name (1) then token (2), both strings. */
    private boolean tokenMessage(int stop) {
        if (pos >= stop || buf[pos] != (1 << 3 | BYTES)) {
            return false;
        }
        pos++;
        int n = lengthPrefix();
        if (n < 0 || pos + n > stop) {
            return false;
        }
        int nOff = pos;
        pos += n;
        if (pos >= stop || buf[pos] != (2 << 3 | BYTES)) {
            return false;
        }
        pos++;
        int t = lengthPrefix();
        if (t < 0 || pos + t != stop) {
            return false;
        }
        if (tokenCount == nameOff.length) {
            nameOff = java.util.Arrays.copyOf(nameOff, 2 * tokenCount);
            nameLen = java.util.Arrays.copyOf(nameLen, 2 * tokenCount);
            tokenOff = java.util.Arrays.copyOf(tokenOff, 2 * tokenCount);
            tokenLen = java.util.Arrays.copyOf(tokenLen, 2 * tokenCount);
        }
        nameOff[tokenCount] = nOff;
        nameLen[tokenCount] = n;
        tokenOff[tokenCount] = pos;
        tokenLen[tokenCount] = t;
        tokenCount++;
        pos = stop;
        return true;
    }

    /**
     * Reads a minimal varint of at most {@code max} bytes into {@link #value}; false when the bytes are not one (cut
     * off, longer than needed, or more than 64 bits).
     */
    private boolean varint(int max) {
        long v = 0;
        for (int i = 0; i < max; i++) {
            if (pos >= end) {
                return false;
            }
            int b = buf[pos++];
            v |= (long) (b & 0x7f) << (7 * i);
            if (b >= 0) {
                // a last byte of 0 after the first is a longer-than-needed encoding; the 10th byte holds one bit
                if ((b == 0 && i > 0) || (i == 9 && b > 1)) {
                    return false;
                }
                value = v;
                return true;
            }
        }
        return false;
    }

    /** A minimal varint of a value below 2^32 (protobuf-java writes uint32 as at most 5 bytes), or -1. */
    private long uint32() {
        // most tags, lengths and values are one byte
        int p = pos;
        if (p < end && buf[p] >= 0) {
            pos = p + 1;
            return buf[p];
        }
        if (end - p < 5) {
            return varint(5) && value >= 0 && value <= 0xffffffffL ? value : -1;
        }
        return u32();
    }

    /**
     * {@link #uint32} when five bytes are known to be there: unrolled, with no bounds check (times, bcids, lengths of
     * 2 to 5 bytes are a third of the fields): the rules of varint(5) and the 32-bit bound, a zero last byte refused
     * as longer than needed.
     */
    private long u32() {
        byte[] b = buf;
        int p = pos;
        long v = b[p];
        if (v >= 0) {
            pos = p + 1;
            return v;
        }
        v &= 0x7f;
        int x = b[p + 1];
        v |= (long) (x & 0x7f) << 7;
        if (x >= 0) {
            pos = p + 2;
            return x == 0 ? -1 : v;
        }
        x = b[p + 2];
        v |= (long) (x & 0x7f) << 14;
        if (x >= 0) {
            pos = p + 3;
            return x == 0 ? -1 : v;
        }
        x = b[p + 3];
        v |= (long) (x & 0x7f) << 21;
        if (x >= 0) {
            pos = p + 4;
            return x == 0 ? -1 : v;
        }
        x = b[p + 4];
        pos = p + 5;
        // the fifth byte holds bits 28-31 only: 0x01-0x0f
        return x <= 0 || x > 0x0f ? -1 : v | (long) x << 28;
    }

    /** {@link #varint varint(10)} when ten bytes are known to be there: no bounds check per byte. */
    private boolean u64() {
        byte[] b = buf;
        int p = pos;
        long v = 0;
        for (int i = 0; i < 10; i++) {
            int x = b[p + i];
            v |= (long) (x & 0x7f) << (7 * i);
            if (x >= 0) {
                if ((x == 0 && i > 0) || (i == 9 && x > 1)) {
                    return false;
                }
                pos = p + i + 1;
                value = v;
                return true;
            }
        }
        return false;
    }

    /** A length prefix that fits in the remaining bytes, or -1. */
    private int lengthPrefix() {
        long n = uint32();
        return n < 0 || n > end - pos ? -1 : (int) n;
    }

    /** Points this scan at {@code bytes[start, end)}, for {@link SavedScan#restore}, which sets the fields. */
    void point(byte[] bytes, int start, int end) {
        this.buf = bytes;
        this.start = start;
        this.end = end;
        this.pos = end;
    }

    /** The scanned array (string offsets refer to it). */
    public byte[] buf() {
        return buf;
    }

    /** Offset of the scanned event in {@link #buf()}. */
    public int offset() {
        return start;
    }

    /** Length of the scanned event. */
    public int length() {
        return end - start;
    }

    /** The POOL token {@code i} as text (for validation and messages). */
    public String tokenText(int i) {
        return new String(buf, tokenOff[i], tokenLen[i], StandardCharsets.UTF_8);
    }
}
