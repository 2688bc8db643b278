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
        private final HashMap<Prefix, String> cache = new HashMap<>();
        private final Prefix probe = new Prefix();

        /**
         * Fills {@code into} with the references of {@code e}, read from the file with GUID {@code fileGuid}.
         *
         * @return {@code into}
         * @throws IllegalArgumentException naming the token when one is malformed
         */
        public StageRefs resolve(EventScan e, String fileGuid, StageRefs into) {
            into.clear();
            if (e.tokenCount == 0) {
                into.db = fileGuid;
                return into;
            }
            byte[] b = e.buf();
            for (int i = 0; i < e.tokenCount; i++) {
                String guid = dbOf(e, i);
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

        private String dbOf(EventScan e, int i) {
            byte[] b = e.buf();
            int off = e.tokenOff[i];
            int n = e.tokenLen[i];
            int end = 0;
            while (end < n && b[off + end] != ']') {
                end++;
            }
            int prefix = end > 0 && end < n ? end : n;
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
