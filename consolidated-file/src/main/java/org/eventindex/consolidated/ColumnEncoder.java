package org.eventindex.consolidated;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.util.Arrays;

/**
 * One column of the row group being written: the levels of the open page, the finished pages (compressed, in one
 * buffer kept across row groups) with what the page headers and the page index need, and their output through
 * parquet-mr's {@link ParquetFileWriter} (page headers, CRCs, column and offset indexes, chunk metadata). Subclasses
 * encode the values and keep the statistics.
 * <p>
 * Pages are data page v1: repetition levels, then definition levels, each RLE/bit-packed and prefixed by its 4-byte
 * length (absent when the column's maximum level is 0), then the values. A page ends after the row that brings its
 * values to {@link ConsolidatedSchema#PAGE_BYTES}, or after {@link #PAGE_ROWS} rows (parquet-mr's default limit, which
 * keeps the page index useful for dictionary columns whose indices take a bit or two per row).
 */
abstract class ColumnEncoder {
    static final int PAGE_ROWS = 20_000;

    final ColumnDescriptor column;
    final String name;
    private final PageCompressor compressor;
    private final boolean repeated;
    private final int maxDef;
    private final int defWidth;
    private int[] rep;
    private int[] def;
    /** Values of the open page, nulls included (its number of levels). */
    private int entries;
    private int nulls;
    private int rows;

    private final ByteSink chunk = new ByteSink(1 << 16);
    private int pages;
    private int[] pageEntries = new int[16];
    private int[] pageRows = new int[16];
    private int[] pageRaw = new int[16];
    private int[] pageStored = new int[16];
    private Encoding[] pageEncoding = new Encoding[16];
    private Statistics<?>[] pageStatistics = new Statistics<?>[16];
    private long chunkEntries;

    ColumnEncoder(ColumnDescriptor column, PageCompressor compressor) {
        this.column = column;
        this.name = String.join(".", column.getPath());
        this.compressor = compressor;
        this.repeated = column.getMaxRepetitionLevel() > 0;
        this.maxDef = column.getMaxDefinitionLevel();
        this.defWidth = HybridEncoder.bitWidth(maxDef);
        this.rep = repeated ? new int[1024] : null;
        this.def = maxDef > 0 ? new int[1024] : null;
    }

    /** Records the levels of the next value (a present value has {@code d} = the column's maximum). */
    final void level(int r, int d) {
        if (def != null) {
            if (entries == def.length) {
                def = Arrays.copyOf(def, entries * 2);
                if (rep != null) {
                    rep = Arrays.copyOf(rep, entries * 2);
                }
            }
            def[entries] = d;
            if (rep != null) {
                rep[entries] = r;
            }
        }
        entries++;
    }

    /** A null, or an empty list: no value, only levels. */
    final void writeNull(int r, int d) {
        level(r, d);
        nulls++;
    }

    /** Ends a row of this column; the page ends here if full (pages hold whole rows). */
    final void endRow() {
        if (++rows >= PAGE_ROWS || valueBytes() >= ConsolidatedSchema.PAGE_BYTES) {
            finishPage();
        }
    }

    /** Bytes the open page's values take so far (an estimate for dictionary indices). */
    abstract int valueBytes();

    /** Appends the open page's values to {@code page} and forgets them; returns their encoding. */
    abstract Encoding writeValues(ByteSink page);

    /** The open page's statistics, then starts the next page's; {@code nulls} of the page's values are null. */
    abstract Statistics<?> pageStatistics(int nulls);

    /** The dictionary the chunk's pages refer to, or null when none does. */
    abstract Dictionary dictionary();

    /** Forgets the row group: the next value starts a new column chunk. */
    abstract void resetChunk();

    /**
     * The buffered size of the column chunk, as counted against {@link ConsolidatedSchema#ROW_GROUP_BYTES}: the
     * compressed pages, the open page (values, and levels at a generous 2 bits each) and the dictionary.
     */
    final long bufferedBytes() {
        Dictionary d = dictionary();
        return chunk.size() + valueBytes() + (entries >> 2) + (d == null ? 0 : d.byteSize());
    }

    final void finishPage() {
        if (rows == 0) {
            return;
        }
        Statistics<?> statistics = pageStatistics(nulls);
        ByteSink page = compressor.page();
        page.reset();
        if (repeated) {
            levels(rep, 1, page);
        }
        if (maxDef > 0) {
            levels(def, defWidth, page);
        }
        Encoding encoding = writeValues(page);
        if (pages == pageEntries.length) {
            int n = pages * 2;
            pageEntries = Arrays.copyOf(pageEntries, n);
            pageRows = Arrays.copyOf(pageRows, n);
            pageRaw = Arrays.copyOf(pageRaw, n);
            pageStored = Arrays.copyOf(pageStored, n);
            pageEncoding = Arrays.copyOf(pageEncoding, n);
            pageStatistics = Arrays.copyOf(pageStatistics, n);
        }
        pageEntries[pages] = entries;
        pageRows[pages] = rows;
        pageRaw[pages] = page.size();
        pageStored[pages] = compressor.compress(page, chunk, name);
        pageEncoding[pages] = encoding;
        pageStatistics[pages] = statistics;
        pages++;
        chunkEntries += entries;
        entries = 0;
        nulls = 0;
        rows = 0;
    }

    private void levels(int[] levels, int width, ByteSink page) {
        int lengthAt = page.size();
        page.writeInt(0);
        HybridEncoder.encode(levels, entries, width, page);
        page.putInt(lengthAt, page.size() - lengthAt - 4);
    }

    /** Writes the column chunk (dictionary page, data pages) to {@code file}, then forgets it. */
    final void writeTo(ParquetFileWriter file) throws IOException {
        finishPage();
        file.startColumn(column, chunkEntries, CompressionCodecName.SNAPPY);
        Dictionary dictionary = dictionary();
        if (dictionary != null) {
            ByteSink plain = compressor.page();
            plain.reset();
            plain.write(dictionary.array(), 0, dictionary.byteSize());
            ByteSink compressed = compressor.scratch();
            compressed.reset();
            int stored = compressor.compress(plain, compressed, name);
            // parquet-mr's v1 writer names the dictionary page and the pages using it PLAIN_DICTIONARY; every
            // reader of v1 files accepts it
            file.writeDictionaryPage(new DictionaryPage(BytesInput.from(compressed.array(), 0, stored),
                    plain.size(), dictionary.size(), Encoding.PLAIN_DICTIONARY));
        }
        Encoding rl = repeated ? Encoding.RLE : Encoding.BIT_PACKED;
        Encoding dl = maxDef > 0 ? Encoding.RLE : Encoding.BIT_PACKED;
        byte[] stored = chunk.array();
        for (int i = 0, off = 0; i < pages; off += pageStored[i], i++) {
            file.writeDataPage(pageEntries[i], pageRaw[i], BytesInput.from(stored, off, pageStored[i]),
                    pageStatistics[i], pageRows[i], rl, dl, pageEncoding[i]);
        }
        file.endColumn();
        reset();
    }

    /** Drops the row group's pages (written or abandoned). */
    final void reset() {
        chunk.reset();
        Arrays.fill(pageStatistics, 0, pages, null);
        pages = 0;
        chunkEntries = 0;
        entries = 0;
        nulls = 0;
        rows = 0;
        resetChunk();
    }
}
