package org.eventindex.names;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * A POOL token {@code [DB=<GUID>][CNT=<container>][CLID=<GUID>][TECH=%08X][OID=%016llX-%016llX]}: where one event
 * sits inside one file. Older data carries the older OID form {@code [OID=%08llX-%08llX]}, which is read too and
 * formatted back as it was read ({@link #oidDigits()}).
 * <p>
 * GUIDs are {@code 8-4-4-4-12} upper-case hex, as POOL writes them. The container may be empty or hold text such as
 * {@code POOLContainer(DataHeader)} but no {@code [}, {@code ]} or control characters. TECH is upper-case hex of
 * exactly 8 digits, OID two numbers of exactly 16 (or, in the older form, 8) upper-case hex digits (unsigned values).
 * <p>
 * The grammar is written once, on bytes ({@link #problem(byte[], int, int)}): the SPB reader checks every token of
 * every event with it (the producer's validation and the consumer's first read), and {@link #parse} uses it too, so
 * what one accepts the other does.
 *
 * @param db         the GUID of the file that holds the event
 * @param container  the POOL container name inside that file
 * @param clid       the class id GUID of the stored object
 * @param technology the storage technology code ({@code TECH})
 * @param oid1       the container index ({@code OID} first half)
 * @param oid2       the entry inside the container ({@code OID} second half)
 * @param oidDigits  hex digits of each OID half in the text form: 16, or 8 for the older form
 */
public record PoolToken(String db, String container, String clid, int technology, long oid1, long oid2,
                        int oidDigits) {

    private static final int GUID_LENGTH = 36;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** Hex digits of each OID half: today's form, and the older one. */
    public static final int OID_DIGITS = 16;
    public static final int OLD_OID_DIGITS = 8;

    /** @throws IllegalArgumentException if a GUID is malformed or the container holds a bracket or control char */
    public PoolToken {
        requireNonNull(db, "db is null");
        requireNonNull(container, "container is null");
        requireNonNull(clid, "clid is null");
        if (!isGuid(db)) {
            throw new IllegalArgumentException("POOL token DB '" + Printable.of(db, 60)
                    + "' is not an upper-case GUID (8-4-4-4-12 hex)");
        }
        if (!isGuid(clid)) {
            throw new IllegalArgumentException("POOL token CLID '" + Printable.of(clid, 60)
                    + "' is not an upper-case GUID (8-4-4-4-12 hex)");
        }
        for (int i = 0; i < container.length(); ) {
            int c = container.codePointAt(i);
            // isISOControl: C0, DEL and the C1 range U+0080..U+009F (found by PoolTokenFuzzTest). Code points, not
            // chars: a supplementary character (a surrogate pair, 4 bytes in UTF-8) is allowed as the byte grammar
            // allows it, an unpaired surrogate (which no UTF-8 holds) is not (found by the differential test)
            if (c == '[' || c == ']' || Character.isISOControl(c) || Character.isSurrogate((char) c)
                    && Character.charCount(c) == 1) {
                throw new IllegalArgumentException("POOL token CNT '" + Printable.of(container, 100)
                        + "' has a forbidden character at position " + i);
            }
            i += Character.charCount(c);
        }
        if (oidDigits == OLD_OID_DIGITS) {
            if ((oid1 >>> 32) != 0 || (oid2 >>> 32) != 0) {
                throw new IllegalArgumentException("POOL token OID " + Long.toUnsignedString(oid1, 16) + "-"
                        + Long.toUnsignedString(oid2, 16) + " does not fit the older 8-digit form");
            }
        } else if (oidDigits != OID_DIGITS) {
            throw new IllegalArgumentException("POOL token OID digits must be " + OID_DIGITS + " or "
                    + OLD_OID_DIGITS + ", not " + oidDigits);
        }
    }

    /** A token in today's form (16-digit OID halves). */
    public PoolToken(String db, String container, String clid, int technology, long oid1, long oid2) {
        this(db, container, clid, technology, oid1, oid2, OID_DIGITS);
    }

    /** @throws IllegalArgumentException naming the token and the part that is malformed */
    public static PoolToken parse(String token) {
        if (token == null) {
            throw new IllegalArgumentException("POOL token is missing (null)");
        }
        byte[] b = token.getBytes(StandardCharsets.UTF_8);
        String problem = problem(b, 0, b.length);
        if (problem != null) {
            throw invalid(token, problem);
        }
        // the grammar holds: fixed offsets, the container up to its closing ']'
        int cntStart = 4 + GUID_LENGTH + 6;
        int cntEnd = token.indexOf(']', cntStart);
        int clidStart = cntEnd + 7;
        int techStart = clidStart + GUID_LENGTH + 7;
        int oidStart = techStart + 8 + 6;
        int digits = (token.length() - 1 - oidStart - 1) / 2;
        return new PoolToken(token.substring(4, 4 + GUID_LENGTH), token.substring(cntStart, cntEnd),
                token.substring(clidStart, clidStart + GUID_LENGTH),
                Integer.parseUnsignedInt(token, techStart, techStart + 8, 16),
                Long.parseUnsignedLong(token, oidStart, oidStart + digits, 16),
                Long.parseUnsignedLong(token, oidStart + digits + 1, oidStart + 2 * digits + 1, 16), digits);
    }

    /**
     * Checks the token text {@code b[off, off + len)} (UTF-8) against the grammar, without allocating anything when
     * it holds.
     *
     * @return null when it is a well-formed token, otherwise the reason, naming the part and position
     */
    public static String problem(byte[] b, int off, int len) {
        int end = off + len;
        int p = off;
        int close;
        // [DB=<GUID>]
        if ((close = open(b, p, end, DB_OPEN)) < 0) {
            return expected("DB", p - off, close);
        }
        if (close - (p + DB_OPEN.length) != GUID_LENGTH || !isGuid(b, p + DB_OPEN.length)) {
            return "DB '" + text(b, p + DB_OPEN.length, close, 60) + "' is not an upper-case GUID (8-4-4-4-12 hex)";
        }
        p = close + 1;
        // [CNT=<container>]: no '[' (the first ']' ends it), no control character, UTF-8
        if ((close = open(b, p, end, CNT_OPEN)) < 0) {
            return expected("CNT", p - off, close);
        }
        int bad = containerProblem(b, p + CNT_OPEN.length, close);
        if (bad >= 0) {
            return "CNT '" + text(b, p + CNT_OPEN.length, close, 100) + "' has a forbidden character at byte " + bad;
        }
        p = close + 1;
        // [CLID=<GUID>]
        if ((close = open(b, p, end, CLID_OPEN)) < 0) {
            return expected("CLID", p - off, close);
        }
        if (close - (p + CLID_OPEN.length) != GUID_LENGTH || !isGuid(b, p + CLID_OPEN.length)) {
            return "CLID '" + text(b, p + CLID_OPEN.length, close, 60) + "' is not an upper-case GUID (8-4-4-4-12 hex)";
        }
        p = close + 1;
        // [TECH=%08X]
        if ((close = open(b, p, end, TECH_OPEN)) < 0) {
            return expected("TECH", p - off, close);
        }
        if (close - (p + TECH_OPEN.length) != 8 || !isUpperHex(b, p + TECH_OPEN.length, close)) {
            return "TECH '" + text(b, p + TECH_OPEN.length, close, 40) + "' is not 8 upper-case hex digits";
        }
        p = close + 1;
        // [OID=%016X-%016X] or the older [OID=%08X-%08X]
        if ((close = open(b, p, end, OID_OPEN)) < 0) {
            return expected("OID", p - off, close);
        }
        int v = p + OID_OPEN.length;
        if (!isOid(b, v, close)) {
            return "OID '" + text(b, v, close, 60) + "' is not two 16-digit (or, in the older form, two 8-digit)"
                    + " upper-case hex numbers joined by '-'";
        }
        if (close + 1 != end) {
            return "unexpected text after the OID part at position " + (close + 1 - off);
        }
        return null;
    }

    /**
     * {@link #problem(byte[], int, int)} for the tokens of many events, faster: the tokens at one position of the
     * events of one input file differ only in their OID (the entry), so a token whose bytes up to its OID value are
     * those of the last valid token at its position needs only its OID checked, by the same rule. Anything else goes
     * through the whole grammar. Not thread-safe.
     */
    public static final class Checker {
        private final byte[][] prefix;
        private final int[] prefixLength;

        /** @param positions token positions per event remembered (beyond them every token is checked whole) */
        public Checker(int positions) {
            prefix = new byte[positions][];
            prefixLength = new int[positions];
        }

        /** @return null when {@code b[off, off + len)} is a well-formed token, otherwise the grammar's reason */
        public String problem(int position, byte[] b, int off, int len) {
            if (position < prefix.length) {
                int n = prefixLength[position];
                int end = off + len - 1;
                if (n > 0 && len > n && b[end] == ']'
                        && java.util.Arrays.equals(b, off, off + n, prefix[position], 0, n) && isOid(b, off + n, end)) {
                    return null;
                }
            }
            String problem = PoolToken.problem(b, off, len);
            if (problem == null && position < prefix.length) {
                remember(position, b, off, len);
            }
            return problem;
        }

        /** Keeps the well-formed token's bytes up to its OID value (after its last '['): "[DB=...][OID=". */
        private void remember(int position, byte[] b, int off, int len) {
            int value = off + len - 1;
            while (b[value - 1] != '[') {
                value--;
            }
            value += OID_OPEN.length - 1;
            int n = value - off;
            if (prefix[position] == null || prefix[position].length < n) {
                prefix[position] = new byte[Math.max(n, 256)];
            }
            System.arraycopy(b, off, prefix[position], 0, n);
            prefixLength[position] = n;
        }
    }

    /** Whether {@code b[from, to)} is an OID value of either form: 16 or 8 hex digits, '-', as many again. */
    private static boolean isOid(byte[] b, int from, int to) {
        int n = to - from;
        int digits = n == 2 * OID_DIGITS + 1 ? OID_DIGITS : n == 2 * OLD_OID_DIGITS + 1 ? OLD_OID_DIGITS : -1;
        return digits > 0 && b[from + digits] == '-' && isUpperHex(b, from, from + digits)
                && isUpperHex(b, from + digits + 1, to);
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080_8080_8080_8080L;
    private static final byte[] DB_OPEN = ascii("[DB=");
    private static final byte[] CNT_OPEN = ascii("[CNT=");
    private static final byte[] CLID_OPEN = ascii("[CLID=");
    private static final byte[] TECH_OPEN = ascii("[TECH=");
    private static final byte[] OID_OPEN = ascii("[OID=");
    /** {@link #open}: the opening text is not there. */
    private static final int NO_OPEN = -1;
    /** {@link #open}: the part has no closing ']'. */
    private static final int NO_CLOSE = -2;

    /**
     * Where the part that opens with {@code opening} at {@code b[p]} closes (its first ']'), or {@link #NO_OPEN} /
     * {@link #NO_CLOSE}.
     */
    private static int open(byte[] b, int p, int end, byte[] opening) {
        if (end - p < opening.length || !java.util.Arrays.equals(b, p, p + opening.length, opening, 0,
                opening.length)) {
            return NO_OPEN;
        }
        for (int i = p + opening.length; i < end; i++) {
            if (b[i] == ']') {
                return i;
            }
        }
        return NO_CLOSE;
    }

    private static String expected(String key, int at, int why) {
        return why == NO_CLOSE ? "the " + key + " part has no closing ']'"
                : "expected '[" + key + "=' at position " + at;
    }

    /**
     * The byte offset (from {@code from}) of the first forbidden byte of a container {@code b[from, to)}: '[', a C0
     * control or DEL, a C1 control (U+0080..U+009F) or malformed UTF-8; -1 when there is none.
     */
    private static int containerProblem(byte[] b, int from, int to) {
        int bad = Utf8.invalidAt(b, from, to - from);
        for (int i = from; i < to && (bad < 0 || i - from < bad); i++) {
            int c = b[i] & 0xff;
            if (c == '[' || c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < to && (b[i + 1] & 0xff) < 0xa0)) {
                return i - from;
            }
        }
        return bad;
    }

    private static String text(byte[] b, int from, int to, int max) {
        return Printable.of(new String(b, from, to - from, StandardCharsets.UTF_8), max);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static boolean isGuid(byte[] b, int at) {
        for (int i = 0; i < GUID_LENGTH; i++) {
            int c = b[at + i];
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? c != '-' : !isUpperHex((char) c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isUpperHex(byte[] b, int from, int to) {
        int i = from;
        // eight digits at once: each event's token has an OID of 33 bytes to check (decision 0077)
        for (; to - i >= Long.BYTES; i += Long.BYTES) {
            if (!isUpperHex((long) LONGS.get(b, i))) {
                return false;
            }
        }
        for (; i < to; i++) {
            if (!isUpperHex((char) b[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether each of the eight bytes of {@code w} is 0-9 or A-F. A byte {@code c} below 0x80 plus {@code 0x80 - a}
     * has its top bit set exactly when {@code c >= a}, with no carry into the next byte; a byte of 0x80 or more is
     * refused before its carry matters.
     */
    private static boolean isUpperHex(long w) {
        long atLeast0 = w + 0x5050_5050_5050_5050L;
        long above9 = w + 0x4646_4646_4646_4646L;
        long atLeastA = w + 0x3f3f_3f3f_3f3f_3f3fL;
        long aboveF = w + 0x3939_3939_3939_3939L;
        long hex = (atLeast0 & ~above9) | (atLeastA & ~aboveF);
        return (w & HIGH_BITS) == 0 && (hex & HIGH_BITS) == HIGH_BITS;
    }

    /** The canonical text form (upper-case hex, fixed widths). {@code parse(t.format()).equals(t)}. */
    public String format() {
        StringBuilder out = new StringBuilder(144 + container.length());
        out.append("[DB=").append(db).append("][CNT=").append(container).append("][CLID=").append(clid)
                .append("][TECH=");
        appendHex(out, technology & 0xffffffffL, 8);
        out.append("][OID=");
        appendHex(out, oid1, oidDigits);
        out.append('-');
        appendHex(out, oid2, oidDigits);
        return out.append(']').toString();
    }

    @Override
    public String toString() {
        return format();
    }

    /** True for an {@code 8-4-4-4-12} upper-case hex GUID, the form POOL and the EventIndex use. */
    public static boolean isGuid(String s) {
        if (s == null || s.length() != GUID_LENGTH) {
            return false;
        }
        for (int i = 0; i < GUID_LENGTH; i++) {
            char c = s.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? c != '-' : !isUpperHex(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isUpperHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
    }

    private static void appendHex(StringBuilder out, long value, int digits) {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            out.append(HEX[(int) (value >>> shift) & 0xf]);
        }
    }

    private static IllegalArgumentException invalid(String token, String reason) {
        return new IllegalArgumentException("invalid POOL token '" + Printable.of(token, 200) + "': " + reason);
    }
}
