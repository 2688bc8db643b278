package org.eventindex.consolidated;

import org.eventindex.names.PoolToken;
import org.eventindex.spb.EventScan;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;

/**
 * The per-stage references of one event, derived from its tokens: the first token is the event's own file; tokens
 * named {@code StreamRAW}, {@code StreamESD}, {@code StreamAOD} fill that stage (the first one of a stage wins). The
 * GUID of a reference is the token's {@code [DB=...]}; a token is the index of one of the scanned event's tokens
 * ({@link #NONE} when the stage has none). An event without tokens has its file GUID as own GUID and no own token.
 * Filled by a {@link Resolver}; a plain value otherwise.
 */
public final class StageRefs {
    public static final int NONE = -1;
    private static final byte[] RAW = "StreamRAW".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ESD = "StreamESD".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AOD = "StreamAOD".getBytes(StandardCharsets.US_ASCII);

    public String dbRaw;
    public int tkRaw = NONE;
    public String dbEsd;
    public int tkEsd = NONE;
    public String dbAod;
    public int tkAod = NONE;
    public String db;
    public int tk = NONE;

    private void clear() {
        dbRaw = dbEsd = dbAod = db = null;
        tkRaw = tkEsd = tkAod = tk = NONE;
    }

    /**
     * Computes references, caching the GUID of each token prefix ({@code [DB=...]}). Rows sorted by (run, event)
     * interleave the events of every input file, so a map (bounded: cleared when full) rather than the last value per
     * position. Not thread-safe.
     */
    public static final class Resolver {
        private static final int CACHE_MAX = 16_384;
        /**
         * Input files and token positions with a remembered last prefix (beyond: the map alone); ~0.1 KB per file
         * and position used, so at most a few MB for a dataset of many thousands of files.
         */
        private static final int RECENT_FILES = 1 << 14;
        private static final int RECENT_POSITIONS = 8;
        private final HashMap<Prefix, String> cache = new HashMap<>();
        private final Prefix probe = new Prefix();
        /**
         * Per input file and token position, the last prefix seen there and its GUID: the events of one input file
         * mostly name the same upstream files at the same positions, so comparing with the last one is usually enough
         * (no hashing), while the sorted rows interleave the files.
         */
        private Recent[][] recent = new Recent[0][];

        /**
         * As {@link #resolve(EventScan, String, StageRefs)}, for an event of the input file numbered {@code file} (the
         * same number always for the same file), which lets the GUIDs of its tokens be found by comparing them with
         * the last ones of that file.
         */
        public StageRefs resolve(EventScan e, int file, String fileGuid, StageRefs into) {
            return resolve(e, file, fileGuid, into, true);
        }

        /**
         * Fills {@code into} with the references of {@code e}, read from the file with GUID {@code fileGuid}.
         *
         * @return {@code into}
         * @throws IllegalArgumentException naming the token when one is malformed
         */
        public StageRefs resolve(EventScan e, String fileGuid, StageRefs into) {
            return resolve(e, -1, fileGuid, into, false);
        }

        private StageRefs resolve(EventScan e, int file, String fileGuid, StageRefs into, boolean byFile) {
            into.clear();
            if (e.tokenCount == 0) {
                into.db = fileGuid;
                return into;
            }
            byte[] b = e.buf();
            Recent[] last = byFile ? recentOf(file) : null;
            for (int i = 0; i < e.tokenCount; i++) {
                String guid = last != null && i < RECENT_POSITIONS ? dbOf(e, i, last) : dbOf(e, i);
                if (i == 0) {
                    into.db = guid;
                    into.tk = i;
                }
                int n = e.nameOff[i];
                int len = e.nameLen[i];
                if (into.tkRaw == NONE && is(b, n, len, RAW)) {
                    into.dbRaw = guid;
                    into.tkRaw = i;
                } else if (into.tkEsd == NONE && is(b, n, len, ESD)) {
                    into.dbEsd = guid;
                    into.tkEsd = i;
                } else if (into.tkAod == NONE && is(b, n, len, AOD)) {
                    into.dbAod = guid;
                    into.tkAod = i;
                }
                // other streams (DAOD, HITS...) are recorded only as the own file
            }
            return into;
        }

        private static boolean is(byte[] b, int off, int len, byte[] name) {
            return len == name.length && Arrays.equals(b, off, off + len, name, 0, len);
        }

        private Recent[] recentOf(int file) {
            if (file < 0 || file >= RECENT_FILES) {
                return null;
            }
            if (file >= recent.length) {
                recent = Arrays.copyOf(recent, Math.min(RECENT_FILES, Math.max(file + 1, 2 * recent.length)));
            }
            Recent[] r = recent[file];
            if (r == null) {
                r = new Recent[RECENT_POSITIONS];
                recent[file] = r;
            }
            return r;
        }

        /** The GUID of token {@code i}, compared first with the last prefix at that position. */
        private String dbOf(EventScan e, int i, Recent[] last) {
            Recent r = last[i];
            if (r == null) {
                r = new Recent();
                last[i] = r;
            } else if (r.db != null && r.matches(e.buf(), e.tokenOff[i], e.tokenLen[i])) {
                return r.db;
            }
            String db = dbOf(e, i);
            r.remember(e.buf(), e.tokenOff[i], prefixLength(e.buf(), e.tokenOff[i], e.tokenLen[i]),
                    e.tokenLen[i], db);
            return db;
        }

        /** The bytes of a token that name its GUID: up to the first ']', or the whole token without one. */
        private static int prefixLength(byte[] b, int off, int n) {
            int end = 0;
            while (end < n && b[off + end] != ']') {
                end++;
            }
            return end > 0 && end < n ? end : n;
        }

        private String dbOf(EventScan e, int i) {
            byte[] b = e.buf();
            int off = e.tokenOff[i];
            int prefix = prefixLength(b, off, e.tokenLen[i]);
            String db = cache.get(probe.set(b, off, prefix));
            if (db == null) {
                // the first sight of a GUID validates the whole token; later tokens of the same file share it
                db = PoolToken.parse(e.tokenText(i)).db();
                if (cache.size() >= CACHE_MAX) {
                    cache.clear();
                }
                cache.put(new Prefix().set(Arrays.copyOfRange(b, off, off + prefix), 0, prefix), db);
            }
            return db;
        }
    }

    /** The last token prefix seen at one position of one input file's events, and its GUID. */
    private static final class Recent {
        /** "[DB=" and a GUID: 40 bytes. */
        private byte[] prefix = new byte[40];
        private int length;
        /** Whether the prefix is the whole token (no ']' after it). */
        private boolean whole;
        private String db;

        /** Whether the token {@code b[off, off + n)} has this prefix (its first ']' then comes right after it). */
        boolean matches(byte[] b, int off, int n) {
            if (whole ? n != length : n <= length || b[off + length] != ']') {
                return false;
            }
            // the stored prefix has no ']': equal bytes mean the token's first ']' is where this one's was
            return Arrays.equals(b, off, off + length, prefix, 0, length);
        }

        void remember(byte[] b, int off, int length, int tokenLength, String db) {
            if (prefix.length < length) {
                prefix = new byte[Math.max(length, 2 * prefix.length)];
            }
            System.arraycopy(b, off, prefix, 0, length);
            this.length = length;
            this.whole = length == tokenLength;
            this.db = db;
        }
    }

    /** A byte range as a map key; the probe instance points into the scanned event, stored keys own their bytes. */
    private static final class Prefix {
        private byte[] b;
        private int off;
        private int len;
        private int hash;

        Prefix set(byte[] bytes, int offset, int length) {
            b = bytes;
            off = offset;
            len = length;
            // "[DB=" and then the GUID's hex digits: the first 24 bytes tell prefixes apart well enough for a hash
            // (equals compares them all)
            int h = length;
            for (int i = offset, stop = offset + Math.min(length, 24); i < stop; i++) {
                h = 31 * h + bytes[i];
            }
            hash = h;
            return this;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Prefix p && p.hash == hash && p.len == len
                    && Arrays.equals(b, off, off + len, p.b, p.off, p.off + len);
        }
    }
}
