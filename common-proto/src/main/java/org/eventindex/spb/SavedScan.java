package org.eventindex.spb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * An {@link EventScan} saved with the event it scanned, so that whoever reads the event later (the consumer's merge,
 * after the events went through a sort run on local disk) gets the scan back without scanning the event again.
 * <p>
 * Layout, little-endian: kind (1 B: {@code 1} with fields, {@code 0} without), flags of the optional and boolean fields
 * (2 B), token count (1 B), run number, event number (8 B), lumi block, time stamp, its ns offset, BCID, extended L1
 * id, SMK, HLTPSK, L1PSK, MC event weight bits, MC channel number (4 B each), offset and length of the three trigger
 * masks (2 + 2 B each, offset {@code 0xffff} when absent), per token the offset and length of its name and of its token
 * (2 + 2 B each), then the event's bytes. Offsets are relative to the event. An event too long for 16-bit offsets (over
 * {@value #MAX_EVENT} bytes), or with more than 255 tokens, is saved without the fields: kind {@code 0}, then the
 * event, which {@link #restore} scans.
 */
public final class SavedScan {
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final byte WITHOUT_FIELDS = 0;
    private static final byte WITH_FIELDS = 1;
    /** Bytes before the tokens: kind, flags, token count, 12 numbers, 3 masks' offset and length. */
    private static final int FIXED = 4 + 4 + 8 + 4 * 10 + 3 * 4;
    /** Bytes per token: offset and length of its name and of its token. */
    private static final int PER_TOKEN = 4 * 2;
    /** Longest event saved with its fields. */
    static final int MAX_EVENT = 0xfffe;
    /** The offset of an absent mask. */
    private static final int ABSENT = 0xffff;

    private SavedScan() {
    }

    /** Bytes {@link #write} takes for the event {@code e} scanned last. */
    public static int length(EventScan e) {
        return withFields(e) ? FIXED + PER_TOKEN * e.tokenCount + e.length() : 1 + e.length();
    }

    private static boolean withFields(EventScan e) {
        return e.length() <= MAX_EVENT && e.tokenCount <= 0xff;
    }

    /**
     * Saves the scan {@code e} (its fields, then its event's bytes) at {@code into[at]}, {@link #length} bytes.
     *
     * @return the offset after what was written
     */
    public static int write(EventScan e, byte[] into, int at) {
        int start = e.offset();
        int len = e.length();
        if (!withFields(e)) {
            into[at] = WITHOUT_FIELDS;
            System.arraycopy(e.buf(), start, into, at + 1, len);
            return at + 1 + len;
        }
        int flags = (e.hasExtendedLevel1ID ? 1 : 0) | (e.isSimulation ? 2 : 0) | (e.isCalibration ? 4 : 0)
                | (e.isTestBeam ? 8 : 0) | (e.hasSmk ? 16 : 0) | (e.hasHltpsk ? 32 : 0) | (e.hasL1psk ? 64 : 0)
                | (e.hasMcEventWeight ? 128 : 0) | (e.hasMcChannelNumber ? 256 : 0);
        into[at] = WITH_FIELDS;
        U16.set(into, at + 1, (short) flags);
        into[at + 3] = (byte) e.tokenCount;
        I32.set(into, at + 4, e.runNumber);
        I64.set(into, at + 8, e.eventNumber);
        I32.set(into, at + 16, e.lumiBlock);
        I32.set(into, at + 20, e.timeStamp);
        I32.set(into, at + 24, e.timeStampNSOffset);
        I32.set(into, at + 28, e.bcid);
        I32.set(into, at + 32, e.extendedLevel1ID);
        I32.set(into, at + 36, e.smk);
        I32.set(into, at + 40, e.hltpsk);
        I32.set(into, at + 44, e.l1psk);
        I32.set(into, at + 48, Float.floatToRawIntBits(e.mcEventWeight));
        I32.set(into, at + 52, e.mcChannelNumber);
        putRange(into, at + 56, e.l1MaskOff, e.l1MaskLen, start);
        putRange(into, at + 60, e.l2MaskOff, e.l2MaskLen, start);
        putRange(into, at + 64, e.efMaskOff, e.efMaskLen, start);
        int p = at + FIXED;
        for (int i = 0; i < e.tokenCount; i++, p += PER_TOKEN) {
            putRange(into, p, e.nameOff[i], e.nameLen[i], start);
            putRange(into, p + 4, e.tokenOff[i], e.tokenLen[i], start);
        }
        System.arraycopy(e.buf(), start, into, p, len);
        return p + len;
    }

    private static void putRange(byte[] into, int at, int off, int len, int start) {
        U16.set(into, at, (short) (off < 0 ? ABSENT : off - start));
        U16.set(into, at + 2, (short) len);
    }

    /**
     * Tokens of the scan saved in {@code bytes[off, off + len)}, for readers that handle its token strings without
     * restoring it (the consumer's run files code each token against the one before); -1 when it is saved without
     * fields or too short to hold them.
     */
    public static int tokenCount(byte[] bytes, int off, int len) {
        if (len < FIXED || bytes[off] != WITH_FIELDS) {
            return -1;
        }
        int tokens = bytes[off + 3] & 0xff;
        return eventOffset(tokens) <= len ? tokens : -1;
    }

    /** Where the event's bytes start in a scan saved with fields and {@code tokens} tokens, from its start. */
    public static int eventOffset(int tokens) {
        return FIXED + PER_TOKEN * tokens;
    }

    /**
     * Offset of token {@code i}'s POOL token string in the event of the scan saved at {@code bytes[off]} (with
     * fields: {@link #tokenCount} at least {@code i + 1}), from the event's start; {@value #ABSENT} when not set.
     */
    public static int tokenOffset(byte[] bytes, int off, int i) {
        return (short) U16.get(bytes, off + FIXED + PER_TOKEN * i + 4) & 0xffff;
    }

    /** Length of token {@code i}'s POOL token string in the scan saved at {@code bytes[off]}. */
    public static int tokenLength(byte[] bytes, int off, int i) {
        return (short) U16.get(bytes, off + FIXED + PER_TOKEN * i + 6) & 0xffff;
    }

    /**
     * Restores into {@code e} the scan saved in {@code bytes[off, off + len)}, pointing into that array. The fields
     * are taken as saved (the event was canonical when it was scanned); an event saved without them is scanned.
     *
     * @return false when the bytes are not a saved scan (or, for one without fields, not a canonical event)
     */
    public static boolean restore(byte[] bytes, int off, int len, EventScan e) {
        if (len < 1) {
            return false;
        }
        if (bytes[off] == WITHOUT_FIELDS) {
            return e.scan(bytes, off + 1, len - 1);
        }
        if (bytes[off] != WITH_FIELDS || len < FIXED) {
            return false;
        }
        int tokens = bytes[off + 3] & 0xff;
        int start = off + FIXED + PER_TOKEN * tokens;
        int end = off + len;
        if (start > end) {
            return false;
        }
        e.point(bytes, start, end);
        int flags = (short) U16.get(bytes, off + 1);
        e.hasExtendedLevel1ID = (flags & 1) != 0;
        e.isSimulation = (flags & 2) != 0;
        e.isCalibration = (flags & 4) != 0;
        e.isTestBeam = (flags & 8) != 0;
        e.hasSmk = (flags & 16) != 0;
        e.hasHltpsk = (flags & 32) != 0;
        e.hasL1psk = (flags & 64) != 0;
        e.hasMcEventWeight = (flags & 128) != 0;
        e.hasMcChannelNumber = (flags & 256) != 0;
        e.runNumber = (int) I32.get(bytes, off + 4);
        e.eventNumber = (long) I64.get(bytes, off + 8);
        e.lumiBlock = (int) I32.get(bytes, off + 16);
        e.timeStamp = (int) I32.get(bytes, off + 20);
        e.timeStampNSOffset = (int) I32.get(bytes, off + 24);
        e.bcid = (int) I32.get(bytes, off + 28);
        e.extendedLevel1ID = (int) I32.get(bytes, off + 32);
        e.smk = (int) I32.get(bytes, off + 36);
        e.hltpsk = (int) I32.get(bytes, off + 40);
        e.l1psk = (int) I32.get(bytes, off + 44);
        e.mcEventWeight = Float.intBitsToFloat((int) I32.get(bytes, off + 48));
        e.mcChannelNumber = (int) I32.get(bytes, off + 52);
        e.l1MaskOff = rangeOff(bytes, off + 56, start);
        e.l1MaskLen = rangeLen(bytes, off + 56);
        e.l2MaskOff = rangeOff(bytes, off + 60, start);
        e.l2MaskLen = rangeLen(bytes, off + 60);
        e.efMaskOff = rangeOff(bytes, off + 64, start);
        e.efMaskLen = rangeLen(bytes, off + 64);
        if (tokens > e.nameOff.length) {
            e.nameOff = new int[tokens];
            e.nameLen = new int[tokens];
            e.tokenOff = new int[tokens];
            e.tokenLen = new int[tokens];
        }
        e.tokenCount = tokens;
        // every range inside the event: a damaged record must not send the encoders beyond it
        boolean inside = inside(e.l1MaskOff, e.l1MaskLen, end) & inside(e.l2MaskOff, e.l2MaskLen, end)
                & inside(e.efMaskOff, e.efMaskLen, end);
        for (int i = 0, p = off + FIXED; i < tokens; i++, p += PER_TOKEN) {
            e.nameOff[i] = rangeOff(bytes, p, start);
            e.nameLen[i] = rangeLen(bytes, p);
            e.tokenOff[i] = rangeOff(bytes, p + 4, start);
            e.tokenLen[i] = rangeLen(bytes, p + 4);
            inside &= e.nameOff[i] >= 0 && e.tokenOff[i] >= 0 && inside(e.nameOff[i], e.nameLen[i], end)
                    && inside(e.tokenOff[i], e.tokenLen[i], end);
        }
        return inside;
    }

    private static int rangeOff(byte[] bytes, int at, int start) {
        int rel = (short) U16.get(bytes, at) & 0xffff;
        return rel == ABSENT ? -1 : start + rel;
    }

    private static int rangeLen(byte[] bytes, int at) {
        return (short) U16.get(bytes, at + 2) & 0xffff;
    }

    /** An absent range (offset -1), or one within the event ending at {@code end}. */
    private static boolean inside(int off, int len, int end) {
        return off < 0 || off + len <= end;
    }
}
