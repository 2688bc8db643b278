package org.eventindex.names;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Strict UTF-8 (RFC 3629): what every string field of an object must be, since each one ends up in a Parquet STRING
 * column, a JSON footer or a Kudu STRING column, where a reader that decodes it (pyarrow, Impala, Jackson) would
 * refuse it or replace bytes. Protobuf-java does not check proto2 strings, so the SPB reader does, with this.
 */
public final class Utf8 {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8() {
    }

    /**
     * The offset, from {@code off}, of the first byte that does not start a well-formed UTF-8 sequence in
     * {@code b[off, off + len)} (an overlong form, a surrogate, a code point above U+10FFFF, a stray continuation byte
     * or a sequence cut off at the end), or -1 when all of it is well-formed. No allocation.
     */
    public static int invalidAt(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        // ASCII runs are the common case: names, tokens, masks; eight bytes at a time while no high bit is set
        while (end - i >= Long.BYTES && ((long) LONGS.get(b, i) & HIGH_BITS) == 0) {
            i += Long.BYTES;
        }
        while (i < end && b[i] >= 0) {
            i++;
        }
        while (i < end) {
            int c = b[i] & 0xff;
            if (c < 0x80) {
                i++;
                continue;
            }
            int n;
            int min;
            if (c >= 0xc2 && c <= 0xdf) {
                n = 1;
                min = 0x80;
            } else if (c >= 0xe0 && c <= 0xef) {
                n = 2;
                min = 0x800;
            } else if (c >= 0xf0 && c <= 0xf4) {
                n = 3;
                min = 0x10000;
            } else {
                return i - off;
            }
            if (end - i <= n) {
                return i - off;
            }
            int cp = c & (0x3f >> n);
            for (int k = 1; k <= n; k++) {
                int cont = b[i + k] & 0xff;
                if ((cont & 0xc0) != 0x80) {
                    return i - off;
                }
                cp = cp << 6 | (cont & 0x3f);
            }
            if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
                return i - off;
            }
            i += n + 1;
        }
        return -1;
    }

    /** Whether {@code b[off, off + len)} is well-formed UTF-8. */
    public static boolean isValid(byte[] b, int off, int len) {
        return invalidAt(b, off, len) < 0;
    }
}
