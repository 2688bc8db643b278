package org.eventindex.consolidated;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;

/**
 * A column of unsigned INT32, unsigned INT64, FLOAT or BINARY values, PLAIN or dictionary-encoded, with or without
 * min/max statistics.
 * <p>
 * Dictionary columns start each chunk with a dictionary and write their pages as RLE/bit-packed indices into it. As
 * in parquet-mr, the chunk falls back to PLAIN for good (1) at the end of its first page when the indices and the
 * dictionary are not smaller than the PLAIN values (the first page is then written PLAIN, from a PLAIN copy kept for
 * that page only, and the chunk has no dictionary page), and (2) when the dictionary exceeds
 * {@link #DICTIONARY_BYTES}: the page ends with that row, and the next pages are PLAIN (the pages before keep their
 * indices; the dictionary page is still written). The check is per row, not per value as in parquet-mr: a dictionary
 * can exceed the limit by one row's values.
 * <p>
 * Statistics ({@link PageMinMax}): a dictionary column updates its page's min/max only when a dictionary entry is
 * first used in the page, not per value. GUID strings (few distinct {@code String} instances, repeated) are looked up
 * by identity of the previous value, then by a map from the {@code String} (whose hash the JVM caches) to its
 * dictionary id, so no byte is hashed per value.
 */
final class ValueColumn extends ColumnEncoder {
    /** The dictionary page size parquet-mr was configured with ({@code 4 * PAGE_BYTES}). */
    static final int DICTIONARY_BYTES = ConsolidatedSchema.PAGE_BYTES * 4;

    /** List positions whose last dictionary id is remembered (token names: most events have fewer tokens). */
    private static final int RECENT = 8;

    enum Kind { UINT32, UINT64, FLOAT, BINARY }

    private final Kind kind;
    private final Statistics<?> none;
    private final Dictionary dict;
    /** PLAIN values of the open page: always when plain, as a copy during a chunk's first dictionary page. */
    private final ByteSink values = new ByteSink(ConsolidatedSchema.PAGE_BYTES + 1024);
    private boolean plain;
    private boolean firstPage = true;
    private boolean dictionaryPaged;
    private int[] ids;
    private int idCount;
    /** Per dictionary id, the last page number it was used in (statistics need each entry once per page). */
    private int[] usedInPage;
    private int pageNumber = 1;
    private int lastWord;
    private int lastWordId = -1;
    private String lastString;
    private int lastStringId = -1;
    private final HashMap<String, Integer> stringIds;
    /** Dictionary id last written at each of the first {@link #RECENT} list positions, or -1. */
    private final int[] recent = new int[RECENT];

    /** The open page's min/max, or null for a column without statistics. */
    private final PageMinMax minMax;

    ValueColumn(ColumnDescriptor column, PageCompressor compressor, Kind kind, boolean dictionary, boolean stats) {
        super(column, compressor);
        this.kind = kind;
        this.minMax = stats ? new PageMinMax(column.getPrimitiveType(), kind) : null;
        this.none = Statistics.getBuilderForReading(column.getPrimitiveType()).build();
        this.dict = dictionary ? new Dictionary() : null;
        this.plain = !dictionary;
        this.ids = dictionary ? new int[4096] : null;
        this.usedInPage = dictionary ? new int[256] : null;
        this.stringIds = dictionary && kind == Kind.BINARY ? new HashMap<>() : null;
        Arrays.fill(recent, -1);
    }

    void writeInt(int v, int r, int d) {
        level(r, d);
        word(v);
    }

    void writeFloat(float v, int r, int d) {
        level(r, d);
        word(Float.floatToRawIntBits(v));
    }

    private void word(int v) {
        if (plain) {
            values.writeInt(v);
            if (minMax != null) {
                minMax.addWord(v);
            }
            return;
        }
        int id = lastWordId;
        if (v != lastWord || id < 0) {
            id = dict.findOrAddWord(v);
            lastWord = v;
            lastWordId = id;
        }
        if (firstPage) {
            values.writeInt(v);
        }
        addId(id);
    }

    void writeLong(long v, int r, int d) {
        level(r, d);
        // event numbers: unique, never a dictionary
        values.writeLong(v);
        if (minMax != null) {
            minMax.addUnsigned(v);
        }
    }

    void writeBytes(byte[] b, int off, int len, int r, int d) {
        writeBytes(b, off, len, r, d, -1);
    }

    /**
     * A value that is likely the one written last at {@code position} (a token name at that place in the list):
     * compared with it first, which is cheaper than hashing it. Negative or beyond {@link #RECENT}: no guess.
     */
    void writeBytes(byte[] b, int off, int len, int r, int d, int position) {
        level(r, d);
        if (plain) {
            plainBytes(b, off, len);
            return;
        }
        int id;
        if (position >= 0 && position < RECENT) {
            id = recent[position];
            if (id < 0 || dict.length(id) != len
                    || !Arrays.equals(dict.array(), dict.offset(id), dict.offset(id) + len, b, off, off + len)) {
                id = dict.findOrAddBytes(b, off, len);
                recent[position] = id;
            }
        } else {
            id = dict.findOrAddBytes(b, off, len);
        }
        if (firstPage) {
            values.writeInt(len);
            values.write(b, off, len);
        }
        addId(id);
    }

    void writeString(String s, int r, int d) {
        level(r, d);
        if (plain) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            plainBytes(b, 0, b.length);
            return;
        }
        int id = lastStringId;
        if (s != lastString || id < 0) {
            Integer known = stringIds.get(s);
            if (known == null) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                id = dict.findOrAddBytes(b, 0, b.length);
                stringIds.put(s, id);
            } else {
                id = known;
            }
            lastString = s;
            lastStringId = id;
        }
        if (firstPage) {
            values.writeInt(dict.length(id));
            values.write(dict.array(), dict.offset(id), dict.length(id));
        }
        addId(id);
    }

    private void plainBytes(byte[] b, int off, int len) {
        values.writeInt(len);
        values.write(b, off, len);
        if (minMax != null) {
            minMax.addBytes(b, off, len);
        }
    }

    private void addId(int id) {
        if (idCount == ids.length) {
            ids = Arrays.copyOf(ids, idCount * 2);
        }
        ids[idCount++] = id;
        if (minMax != null) {
            if (id >= usedInPage.length) {
                usedInPage = Arrays.copyOf(usedInPage, Math.max(id + 1, usedInPage.length * 2));
            }
            if (usedInPage[id] != pageNumber) {
                usedInPage[id] = pageNumber;
                if (kind == Kind.BINARY) {
                    minMax.addBytes(dict.array(), dict.offset(id), dict.length(id));
                } else {
                    minMax.addWord(dict.word(id));
                }
            }
        }
    }

    @Override
    int valueBytes() {
        if (plain) {
            return values.size();
        }
        if (dict.byteSize() > DICTIONARY_BYTES) {
            // end the page at this row, so that the fallback comes before the dictionary grows further
            return ConsolidatedSchema.PAGE_BYTES;
        }
        return (int) ((long) idCount * HybridEncoder.bitWidth(dict.size()) >>> 3);
    }

    @Override
    Statistics<?> pageStatistics(int nulls) {
        pageNumber++;
        return minMax == null ? none : minMax.finishPage(nulls);
    }

    @Override
    Encoding writeValues(ByteSink page) {
        if (plain) {
            page.write(values.array(), 0, values.size());
            values.reset();
            return Encoding.PLAIN;
        }
        int start = page.size();
        int width = HybridEncoder.bitWidth(dict.size() - 1);
        page.writeByte(width);
        HybridEncoder.encode(ids, idCount, width, page);
        idCount = 0;
        if (firstPage) {
            firstPage = false;
            int plainBytes = values.size();
            if (page.size() - start + dict.byteSize() >= plainBytes) {
                // the dictionary does not pay for this chunk: this page and the next ones PLAIN, no dictionary page
                page.truncate(start);
                page.write(values.array(), 0, plainBytes);
                values.reset();
                fallBack();
                dict.clear();
                return Encoding.PLAIN;
            }
            values.reset();
        }
        dictionaryPaged = true;
        if (dict.byteSize() > DICTIONARY_BYTES) {
            fallBack();
        }
        return Encoding.PLAIN_DICTIONARY;
    }

    private void fallBack() {
        plain = true;
        forgetLookups();
    }

    private void forgetLookups() {
        Arrays.fill(recent, -1);
        lastWordId = -1;
        lastStringId = -1;
        lastString = null;
        if (stringIds != null) {
            stringIds.clear();
        }
    }

    @Override
    Dictionary dictionary() {
        return dictionaryPaged ? dict : null;
    }

    @Override
    void resetChunk() {
        values.reset();
        if (minMax != null) {
            minMax.clear();
        }
        pageNumber++;
        if (dict != null) {
            // a new chunk starts with an empty dictionary again
            forgetLookups();
            dict.clear();
            plain = false;
            firstPage = true;
            dictionaryPaged = false;
            idCount = 0;
        }
    }
}
