package org.eventindex.names;

import static java.util.Objects.requireNonNull;

/**
 * A POOL token {@code [DB=<GUID>][CNT=<container>][CLID=<GUID>][TECH=%08X][OID=%016llX-%016llX]}: where one event
 * sits inside one file.
 * <p>
 * GUIDs are {@code 8-4-4-4-12} upper-case hex, as POOL writes them. The container may be empty or hold text such as
 * {@code POOLContainer(DataHeader)} but no {@code [}, {@code ]} or control characters. TECH and OID are upper-case
 * hex of exactly 8 and 16 digits (unsigned values).
 *
 * @param db         the GUID of the file that holds the event
 * @param container  the POOL container name inside that file
 * @param clid       the class id GUID of the stored object
 * @param technology the storage technology code ({@code TECH})
 * @param oid1       the container index ({@code OID} first half)
 * @param oid2       the entry inside the container ({@code OID} second half)
 */
public record PoolToken(String db, String container, String clid, int technology, long oid1, long oid2) {

    private static final int GUID_LENGTH = 36;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

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
        for (int i = 0; i < container.length(); i++) {
            char c = container.charAt(i);
            // isISOControl: C0, DEL and the C1 range U+0080..U+009F (found by PoolTokenFuzzTest).
            if (c == '[' || c == ']' || Character.isISOControl(c)) {
                throw new IllegalArgumentException("POOL token CNT '" + Printable.of(container, 100)
                        + "' has a forbidden character at position " + i);
            }
        }
    }

    /** @throws IllegalArgumentException naming the token and the part that is malformed */
    public static PoolToken parse(String token) {
        if (token == null) {
            throw new IllegalArgumentException("POOL token is missing (null)");
        }
        int[] pos = {0};
        String db = part(token, pos, "DB");
        String cnt = part(token, pos, "CNT");
        String clid = part(token, pos, "CLID");
        String tech = part(token, pos, "TECH");
        String oid = part(token, pos, "OID");
        if (pos[0] != token.length()) {
            throw invalid(token, "unexpected text after the OID part at position " + pos[0]);
        }
        if (!isGuid(db)) {
            throw invalid(token, "DB '" + Printable.of(db, 60) + "' is not an upper-case GUID (8-4-4-4-12 hex)");
        }
        if (!isGuid(clid)) {
            throw invalid(token, "CLID '" + Printable.of(clid, 60)
                    + "' is not an upper-case GUID (8-4-4-4-12 hex)");
        }
        if (tech.length() != 8 || !isUpperHex(tech, 0, 8)) {
            throw invalid(token, "TECH '" + Printable.of(tech, 40) + "' is not 8 upper-case hex digits");
        }
        if (oid.length() != 33 || oid.charAt(16) != '-' || !isUpperHex(oid, 0, 16) || !isUpperHex(oid, 17, 33)) {
            throw invalid(token, "OID '" + Printable.of(oid, 60) + "' is not two 16-digit upper-case hex numbers"
                    + " joined by '-'");
        }
        try {
            return new PoolToken(db, cnt, clid, Integer.parseUnsignedInt(tech, 16),
                    Long.parseUnsignedLong(oid, 0, 16, 16), Long.parseUnsignedLong(oid, 17, 33, 16));
        } catch (IllegalArgumentException e) {
            throw invalid(token, e.getMessage());
        }
    }

    /** The canonical text form (upper-case hex, fixed widths). {@code parse(t.format()).equals(t)}. */
    public String format() {
        StringBuilder out = new StringBuilder(144 + container.length());
        out.append("[DB=").append(db).append("][CNT=").append(container).append("][CLID=").append(clid)
                .append("][TECH=");
        appendHex(out, technology & 0xffffffffL, 8);
        out.append("][OID=");
        appendHex(out, oid1, 16);
        out.append('-');
        appendHex(out, oid2, 16);
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

    /** Reads {@code [KEY=value]} at {@code pos[0]} and advances past it. */
    private static String part(String token, int[] pos, String key) {
        int start = pos[0];
        if (!token.startsWith(key, start + 1) || token.length() <= start + key.length() + 1
                || token.charAt(start) != '[' || token.charAt(start + 1 + key.length()) != '=') {
            throw invalid(token, "expected '[" + key + "=' at position " + start);
        }
        int valueStart = start + key.length() + 2;
        int close = token.indexOf(']', valueStart);
        if (close < 0) {
            throw invalid(token, "the " + key + " part has no closing ']'");
        }
        pos[0] = close + 1;
        return token.substring(valueStart, close);
    }

    private static boolean isUpperHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!isUpperHex(s.charAt(i))) {
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
