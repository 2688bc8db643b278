package org.eventindex.spb;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DiscardUnknownFieldsParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
    private static final Parser<EIEvent_p1> CANONICAL_PARSER = DiscardUnknownFieldsParser.wrap(EIEvent_p1.parser());
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    /** First byte of a {@link #writeIndexed saved scan}: no index, the event follows (scanned again on restore). */
    private static final byte UNINDEXED = 0;
    /** First byte of a saved scan with its fields. */
    private static final byte INDEXED = 1;
    /** Bytes of an index before its tokens (kind, flags, token count, 12 numbers, 3 masks' offset and length). */
    private static final int INDEX_FIXED = 4 + 4 + 8 + 4 * 10 + 3 * 4;
    /** Index bytes per token: offset and length of its name and of its token. */
    private static final int INDEX_PER_TOKEN = 4 * 2;
    /** Offsets in an index are 16 bits, 0xffff meaning "absent": a longer event is saved without one. */
    private static final int INDEX_MAX_EVENT = 0xfffe;
    private static final int ABSENT = 0xffff;

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
        buf = bytes;
        start = off;
        pos = off;
        end = off + len;
        clearFields();
        l1MaskOff = l2MaskOff = efMaskOff = -1;
        l1MaskLen = l2MaskLen = efMaskLen = 0;
        tokenCount = 0;
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
                if (!varint(10)) {
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
                if (wire != FIXED32 || end - pos < 4) {
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

    /** A minimal varint of a value below 2^32 (protobuf-java writes uint32 as at most 5 bytes). */
    private long uint32() {
        // most tags, lengths and values are one byte
        int p = pos;
        if (p < end && buf[p] >= 0) {
            pos = p + 1;
            return buf[p];
        }
        return varint(5) && value >= 0 && value <= 0xffffffffL ? value : -1;
    }

    /** A length prefix that fits in the remaining bytes, or -1. */
    private int lengthPrefix() {
        long n = uint32();
        return n < 0 || n > end - pos ? -1 : (int) n;
    }

    /**
     * Bytes {@link #writeIndexed} writes for the scanned event: its fields (what {@link #restore} needs to rebuild
     * this scan without reading the event again), then the event's bytes.
     */
    public int indexedLength() {
        return indexable() ? INDEX_FIXED + INDEX_PER_TOKEN * tokenCount + length() : 1 + length();
    }

    private boolean indexable() {
        return length() <= INDEX_MAX_EVENT && tokenCount <= 0xff;
    }

    /**
     * Saves this scan at {@code into[at]}: the scanned fields (little-endian; string offsets relative to the event),
     * then the event's bytes, {@link #indexedLength} bytes in all. An event too long for 16-bit offsets, or with more
     * than 255 tokens, is saved without the fields (restored by scanning it again).
     *
     * @return the offset after what was written
     */
    public int writeIndexed(byte[] into, int at) {
        int len = length();
        if (!indexable()) {
            into[at] = UNINDEXED;
            System.arraycopy(buf, start, into, at + 1, len);
            return at + 1 + len;
        }
        int flags = (hasExtendedLevel1ID ? 1 : 0) | (isSimulation ? 2 : 0) | (isCalibration ? 4 : 0)
                | (isTestBeam ? 8 : 0) | (hasSmk ? 16 : 0) | (hasHltpsk ? 32 : 0) | (hasL1psk ? 64 : 0)
                | (hasMcEventWeight ? 128 : 0) | (hasMcChannelNumber ? 256 : 0);
        into[at] = INDEXED;
        U16.set(into, at + 1, (short) flags);
        into[at + 3] = (byte) tokenCount;
        I32.set(into, at + 4, runNumber);
        I64.set(into, at + 8, eventNumber);
        I32.set(into, at + 16, lumiBlock);
        I32.set(into, at + 20, timeStamp);
        I32.set(into, at + 24, timeStampNSOffset);
        I32.set(into, at + 28, bcid);
        I32.set(into, at + 32, extendedLevel1ID);
        I32.set(into, at + 36, smk);
        I32.set(into, at + 40, hltpsk);
        I32.set(into, at + 44, l1psk);
        I32.set(into, at + 48, Float.floatToRawIntBits(mcEventWeight));
        I32.set(into, at + 52, mcChannelNumber);
        putRange(into, at + 56, l1MaskOff, l1MaskLen);
        putRange(into, at + 60, l2MaskOff, l2MaskLen);
        putRange(into, at + 64, efMaskOff, efMaskLen);
        int p = at + INDEX_FIXED;
        for (int i = 0; i < tokenCount; i++, p += INDEX_PER_TOKEN) {
            putRange(into, p, nameOff[i], nameLen[i]);
            putRange(into, p + 4, tokenOff[i], tokenLen[i]);
        }
        System.arraycopy(buf, start, into, p, len);
        return p + len;
    }

    private void putRange(byte[] into, int at, int off, int len) {
        U16.set(into, at, (short) (off < 0 ? ABSENT : off - start));
        U16.set(into, at + 2, (short) len);
    }

    /**
     * Restores the scan {@link #writeIndexed} saved in {@code bytes[off, off + len)}, pointing into that array. The
     * fields are taken as saved (an event was canonical when it was scanned); one saved without them is scanned.
     *
     * @return false when the bytes are not a saved scan (or, for one without fields, not a canonical event)
     */
    public boolean restore(byte[] bytes, int off, int len) {
        if (len < 1) {
            return false;
        }
        if (bytes[off] == UNINDEXED) {
            return scan(bytes, off + 1, len - 1);
        }
        if (bytes[off] != INDEXED || len < INDEX_FIXED) {
            return false;
        }
        int tokens = bytes[off + 3] & 0xff;
        int eventAt = off + INDEX_FIXED + INDEX_PER_TOKEN * tokens;
        if (eventAt > off + len) {
            return false;
        }
        buf = bytes;
        start = eventAt;
        end = off + len;
        pos = end;
        int flags = (short) U16.get(bytes, off + 1);
        hasExtendedLevel1ID = (flags & 1) != 0;
        isSimulation = (flags & 2) != 0;
        isCalibration = (flags & 4) != 0;
        isTestBeam = (flags & 8) != 0;
        hasSmk = (flags & 16) != 0;
        hasHltpsk = (flags & 32) != 0;
        hasL1psk = (flags & 64) != 0;
        hasMcEventWeight = (flags & 128) != 0;
        hasMcChannelNumber = (flags & 256) != 0;
        runNumber = (int) I32.get(bytes, off + 4);
        eventNumber = (long) I64.get(bytes, off + 8);
        lumiBlock = (int) I32.get(bytes, off + 16);
        timeStamp = (int) I32.get(bytes, off + 20);
        timeStampNSOffset = (int) I32.get(bytes, off + 24);
        bcid = (int) I32.get(bytes, off + 28);
        extendedLevel1ID = (int) I32.get(bytes, off + 32);
        smk = (int) I32.get(bytes, off + 36);
        hltpsk = (int) I32.get(bytes, off + 40);
        l1psk = (int) I32.get(bytes, off + 44);
        mcEventWeight = Float.intBitsToFloat((int) I32.get(bytes, off + 48));
        mcChannelNumber = (int) I32.get(bytes, off + 52);
        l1MaskOff = rangeOff(bytes, off + 56);
        l1MaskLen = rangeLen(bytes, off + 56);
        l2MaskOff = rangeOff(bytes, off + 60);
        l2MaskLen = rangeLen(bytes, off + 60);
        efMaskOff = rangeOff(bytes, off + 64);
        efMaskLen = rangeLen(bytes, off + 64);
        if (tokens > nameOff.length) {
            nameOff = new int[tokens];
            nameLen = new int[tokens];
            tokenOff = new int[tokens];
            tokenLen = new int[tokens];
        }
        tokenCount = tokens;
        // every range inside the event: a damaged index must not send the encoders beyond it
        boolean inside = inside(l1MaskOff, l1MaskLen) & inside(l2MaskOff, l2MaskLen) & inside(efMaskOff, efMaskLen);
        for (int i = 0, p = off + INDEX_FIXED; i < tokens; i++, p += INDEX_PER_TOKEN) {
            nameOff[i] = rangeOff(bytes, p);
            nameLen[i] = rangeLen(bytes, p);
            tokenOff[i] = rangeOff(bytes, p + 4);
            tokenLen[i] = rangeLen(bytes, p + 4);
            inside &= nameOff[i] >= 0 && tokenOff[i] >= 0 && inside(nameOff[i], nameLen[i])
                    && inside(tokenOff[i], tokenLen[i]);
        }
        return inside;
    }

    /** An absent range (offset -1), or one within the event. */
    private boolean inside(int off, int len) {
        return off < 0 || off + len <= end;
    }

    private int rangeOff(byte[] bytes, int at) {
        int rel = (short) U16.get(bytes, at) & 0xffff;
        return rel == ABSENT ? -1 : start + rel;
    }

    private static int rangeLen(byte[] bytes, int at) {
        return (short) U16.get(bytes, at + 2) & 0xffff;
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
