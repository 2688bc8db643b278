package org.eventindex.consumer;

import org.eventindex.spb.SavedScan;

import java.util.Arrays;

/**
 * The coding of an event's POOL token strings in the consumer's run files (decision 0036): each token string of a
 * {@link SavedScan} record is written as the length of the prefix it shares with the same token of the record before
 * it in the run (2 bytes, little-endian) and the rest of its bytes; everything else of the record is written as it
 * is. The events of a run are sorted, mostly consecutive events of one input file, whose tokens differ only at their
 * end (the entry number): the record shrinks by about the length of its tokens. Nothing is lost: decoding gives the
 * record back byte for byte. One instance codes (or decodes) one run, record after record, and keeps the tokens of
 * the last one; {@link #reset} before another run. A record that is not a saved scan with fields, or whose token
 * strings are not in increasing order within its event, is written as it is and leaves no tokens for the next one.
 * Not thread-safe.
 */
final class TokenPrefixCoder {
    /** Bytes of a prefix length. */
    static final int PREFIX_BYTES = 2;

    /** The last record's token strings, one after the other. */
    private byte[] prev = new byte[512];
    private int[] prevOff = new int[8];
    private int[] prevLen = new int[8];
    /** Tokens of the last record (0: none, the next record's prefixes are all 0). */
    private int prevCount;
    /** The coded (or decoded) record. */
    private byte[] out = new byte[1024];
    private int outLen;

    /** Forgets the last record's tokens (the next record is the first of a run). */
    void reset() {
        prevCount = 0;
    }

    /** The record {@link #encode} or {@link #decode} made last: {@code output()[0, length())}. */
    byte[] output() {
        return out;
    }

    int length() {
        return outLen;
    }

    /**
     * Codes the record {@code buf[off, off + len)} into {@link #output()}.
     *
     * @return false when it is not coded (then it is to be written as it is)
     */
    boolean encode(byte[] buf, int off, int len) {
        int tokens = SavedScan.tokenCount(buf, off, len);
        if (tokens <= 0) {
            prevCount = 0;
            return false;
        }
        int event = off + SavedScan.eventOffset(tokens);
        int end = off + len;
        // the token strings, in increasing order within the event, none beyond it
        int at = event;
        for (int i = 0; i < tokens; i++) {
            int o = SavedScan.tokenOffset(buf, off, i);
            int l = SavedScan.tokenLength(buf, off, i);
            if (event + o < at || event + o + l > end) {
                prevCount = 0;
                return false;
            }
            at = event + o + l;
        }
        ensure(len + PREFIX_BYTES * tokens);
        int fields = event - off;
        System.arraycopy(buf, off, out, 0, fields);
        int p = fields;
        at = event;
        for (int i = 0; i < tokens; i++) {
            int o = event + SavedScan.tokenOffset(buf, off, i);
            int l = SavedScan.tokenLength(buf, off, i);
            System.arraycopy(buf, at, out, p, o - at);
            p += o - at;
            int shared = i < prevCount ? sharedPrefix(prev, prevOff[i], prevLen[i], buf, o, l) : 0;
            out[p] = (byte) shared;
            out[p + 1] = (byte) (shared >>> 8);
            p += PREFIX_BYTES;
            System.arraycopy(buf, o + shared, out, p, l - shared);
            p += l - shared;
            at = o + l;
        }
        System.arraycopy(buf, at, out, p, end - at);
        outLen = p + end - at;
        keepTokens(buf, off, event, tokens);
        return true;
    }

    /**
     * Decodes the coded record {@code buf[off, off + len)} into {@link #output()}.
     *
     * @return false when the bytes are not a coded record (a corrupt run)
     */
    boolean decode(byte[] buf, int off, int len) {
        int tokens = SavedScan.tokenCount(buf, off, len);
        if (tokens <= 0) {
            prevCount = 0;
            return false;
        }
        int fields = SavedScan.eventOffset(tokens);
        // the decoded record is at most the coded one with every token's prefix (each at most 0xffff) added
        ensure(fields);
        System.arraycopy(buf, off, out, 0, fields);
        int q = off + fields;
        int end = off + len;
        int p = fields;
        for (int i = 0; i < tokens; i++) {
            int o = fields + SavedScan.tokenOffset(out, 0, i);
            int l = SavedScan.tokenLength(out, 0, i);
            int gap = o - p;
            if (gap < 0 || end - q < gap + PREFIX_BYTES) {
                prevCount = 0;
                return false;
            }
            ensure(o + l);
            System.arraycopy(buf, q, out, p, gap);
            q += gap;
            int shared = (buf[q] & 0xff) | (buf[q + 1] & 0xff) << 8;
            q += PREFIX_BYTES;
            if (shared > l || (shared > 0 && (i >= prevCount || shared > prevLen[i])) || end - q < l - shared) {
                prevCount = 0;
                return false;
            }
            if (shared > 0) {
                // only then is there a token i before (i < prevCount): beyond it prevOff may be shorter than tokens
                System.arraycopy(prev, prevOff[i], out, o, shared);
            }
            System.arraycopy(buf, q, out, o + shared, l - shared);
            q += l - shared;
            p = o + l;
        }
        ensure(p + end - q);
        System.arraycopy(buf, q, out, p, end - q);
        outLen = p + end - q;
        keepTokens(out, 0, fields, tokens);
        return true;
    }

    /** Keeps the token strings of the record at {@code buf[off]} (its event at {@code buf[event]}) for the next. */
    private void keepTokens(byte[] buf, int off, int event, int tokens) {
        if (tokens > prevOff.length) {
            prevOff = new int[tokens];
            prevLen = new int[tokens];
        }
        int p = 0;
        for (int i = 0; i < tokens; i++) {
            int l = SavedScan.tokenLength(buf, off, i);
            if (prev.length < p + l) {
                prev = Arrays.copyOf(prev, Math.max(2 * prev.length, p + l));
            }
            System.arraycopy(buf, event + SavedScan.tokenOffset(buf, off, i), prev, p, l);
            prevOff[i] = p;
            prevLen[i] = l;
            p += l;
        }
        prevCount = tokens;
    }

    private static int sharedPrefix(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        int n = Arrays.mismatch(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
        return n < 0 ? aLen : n;
    }

    private void ensure(int n) {
        if (out.length < n) {
            out = Arrays.copyOf(out, Math.max(n, 2 * out.length));
        }
    }
}
