package org.eventindex.consolidated;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.eventindex.consolidated.ValueColumn.Kind;
import org.eventindex.spb.EventScan;

import java.io.IOException;
import java.util.List;

/**
 * Writes {@link ConsolidatedSchema#SCHEMA} rows into our own column encoders, value by value with the repetition and
 * definition levels known for this one schema:
 * <ul>
 *   <li>required top-level column: r = 0, d = 0;</li>
 *   <li>optional top-level column: d = 1 with a value, a null with d = 0;</li>
 *   <li>{@code eitoken.list.element.{name,token}} (optional LIST of required elements): an empty list is a null
 *       with d = 1 (the list itself is always present, so "no tokens" reads back as an empty list); each token is
 *       d = 2, r = 0 for the first element of the row and r = 1 for the next ones.</li>
 * </ul>
 * The columns are split in two halves at {@link #SPLIT}: the event's own fields ({@link #writeFirst}) and the tokens,
 * file GUID and stage GUIDs ({@link #writeSecond}), which share nothing, so two threads can fill them. The
 * encoders are kept from one row group to the next.
 * <p>
 * Encodings and statistics: dictionaries on every column except the unique-per-event ones ({@code event_number},
 * {@code time_stamp_ns_offset}, {@code extended_level1_id}) and the tokens; min/max
 * statistics (and so the page index) on every column except the trigger masks and the tokens, which are nearly unique
 * per event: they would cost CPU and footer space for no pruning.
 */
final class EventColumns implements ConsolidatedFileWriter.Columns {
    /** Columns of the first half: the event's own fields. */
    static final int SPLIT = 18;

    private final ColumnEncoder[] first;
    private final ColumnEncoder[] second;

    private final ValueColumn run;
    private final ValueColumn event;
    private final ValueColumn lumiBlock;
    private final ValueColumn timeStamp;
    private final ValueColumn timeStampNs;
    private final ValueColumn bcid;
    private final ValueColumn extendedL1;
    private final BooleanColumn simulation;
    private final BooleanColumn calibration;
    private final BooleanColumn testBeam;
    private final ValueColumn l1Mask;
    private final ValueColumn l2Mask;
    private final ValueColumn efMask;
    private final ValueColumn smk;
    private final ValueColumn hltpsk;
    private final ValueColumn l1psk;
    private final ValueColumn mcWeight;
    private final ValueColumn mcChannel;
    private final ValueColumn tokenName;
    private final ValueColumn token;
    private final ValueColumn guid;
    private final ValueColumn dbRaw;
    private final ValueColumn dbEsd;
    private final ValueColumn dbAod;
    private final ValueColumn db;

    /**
     * @param firstPages  page buffers and compression of the first half (used by the thread writing it)
     * @param secondPages the same for the second half
     */
    EventColumns(PageCompressor firstPages, PageCompressor secondPages) {
        List<ColumnDescriptor> c = ConsolidatedSchema.SCHEMA.getColumns();
        Schema s = new Schema(c, firstPages);
        run = s.uint32(ConsolidatedSchema.RUN_NUMBER, true);
        event = s.value(ConsolidatedSchema.EVENT_NUMBER, Kind.UINT64, false, true);
        lumiBlock = s.uint32(ConsolidatedSchema.LUMI_BLOCK, true);
        timeStamp = s.uint32(ConsolidatedSchema.TIME_STAMP, true);
        timeStampNs = s.uint32(ConsolidatedSchema.TIME_STAMP_NS_OFFSET, false);
        bcid = s.uint32(ConsolidatedSchema.BCID, true);
        extendedL1 = s.uint32(ConsolidatedSchema.EXTENDED_LEVEL1_ID, false);
        simulation = s.bool(ConsolidatedSchema.IS_SIMULATION);
        calibration = s.bool(ConsolidatedSchema.IS_CALIBRATION);
        testBeam = s.bool(ConsolidatedSchema.IS_TEST_BEAM);
        l1Mask = s.value(ConsolidatedSchema.L1_PASSED_TRIG_MASK, Kind.BINARY, true, false);
        l2Mask = s.value(ConsolidatedSchema.L2_PASSED_TRIG_MASK, Kind.BINARY, true, false);
        efMask = s.value(ConsolidatedSchema.EF_PASSED_TRIG_MASK, Kind.BINARY, true, false);
        smk = s.uint32(ConsolidatedSchema.SMK, true);
        hltpsk = s.uint32(ConsolidatedSchema.HLTPSK, true);
        l1psk = s.uint32(ConsolidatedSchema.L1PSK, true);
        mcWeight = s.value(ConsolidatedSchema.MC_EVENT_WEIGHT, Kind.FLOAT, true, true);
        mcChannel = s.uint32(ConsolidatedSchema.MC_CHANNEL_NUMBER, true);
        first = s.done(SPLIT);
        s.pages = secondPages;
        tokenName = s.value(ConsolidatedSchema.NAME, Kind.BINARY, true, true);
        token = s.value(ConsolidatedSchema.TOKEN, Kind.BINARY, false, false);
        guid = s.value(ConsolidatedSchema.GUID, Kind.BINARY, true, true);
        dbRaw = s.value(ConsolidatedSchema.DB_RAW, Kind.BINARY, true, true);
        dbEsd = s.value(ConsolidatedSchema.DB_ESD, Kind.BINARY, true, true);
        dbAod = s.value(ConsolidatedSchema.DB_AOD, Kind.BINARY, true, true);
        db = s.value(ConsolidatedSchema.DB, Kind.BINARY, true, true);
        second = s.done(c.size() - SPLIT);
    }

    /** Hands out the schema's columns in order, checking each one's name, so the two cannot drift apart. */
    private static final class Schema {
        private final List<ColumnDescriptor> columns;
        private final ColumnEncoder[] made;
        PageCompressor pages;
        private int next;
        private int doneUpTo;

        Schema(List<ColumnDescriptor> columns, PageCompressor pages) {
            this.columns = columns;
            this.made = new ColumnEncoder[columns.size()];
            this.pages = pages;
        }

        ValueColumn uint32(String name, boolean dictionary) {
            return value(name, Kind.UINT32, dictionary, true);
        }

        ValueColumn value(String name, Kind kind, boolean dictionary, boolean stats) {
            return add(new ValueColumn(column(name), pages, kind, dictionary, stats));
        }

        BooleanColumn bool(String name) {
            return add(new BooleanColumn(column(name), pages));
        }

        private ColumnDescriptor column(String name) {
            if (next >= columns.size()) {
                throw new IllegalStateException("EventColumns writes more columns than the schema has: " + name);
            }
            ColumnDescriptor d = columns.get(next);
            String[] path = d.getPath();
            if (!path[path.length - 1].equals(name)) {
                throw new IllegalStateException("column " + next + " of the schema is " + String.join(".", path)
                        + ", EventColumns writes " + name);
            }
            return d;
        }

        private <T extends ColumnEncoder> T add(T encoder) {
            made[next++] = encoder;
            return encoder;
        }

        ColumnEncoder[] done(int count) {
            if (next - doneUpTo != count) {
                throw new IllegalStateException("EventColumns made " + (next - doneUpTo) + " columns, expected "
                        + count);
            }
            ColumnEncoder[] half = java.util.Arrays.copyOfRange(made, doneUpTo, next);
            doneUpTo = next;
            return half;
        }
    }

    /** The event's own fields (first half), ending the row there. */
    @Override
    public void writeFirst(EventScan e) {
        byte[] b = e.buf();
        run.writeInt(e.runNumber, 0, 0);
        event.writeLong(e.eventNumber, 0, 0);
        lumiBlock.writeInt(e.lumiBlock, 0, 0);
        timeStamp.writeInt(e.timeStamp, 0, 0);
        timeStampNs.writeInt(e.timeStampNSOffset, 0, 0);
        bcid.writeInt(e.bcid, 0, 0);
        optional(extendedL1, e.hasExtendedLevel1ID, e.extendedLevel1ID);
        simulation.write(e.isSimulation);
        calibration.write(e.isCalibration);
        testBeam.write(e.isTestBeam);
        optional(l1Mask, b, e.l1MaskOff, e.l1MaskLen);
        optional(l2Mask, b, e.l2MaskOff, e.l2MaskLen);
        optional(efMask, b, e.efMaskOff, e.efMaskLen);
        optional(smk, e.hasSmk, e.smk);
        optional(hltpsk, e.hasHltpsk, e.hltpsk);
        optional(l1psk, e.hasL1psk, e.l1psk);
        if (e.hasMcEventWeight) {
            mcWeight.writeFloat(e.mcEventWeight, 0, 1);
        } else {
            mcWeight.writeNull(0, 0);
        }
        optional(mcChannel, e.hasMcChannelNumber, e.mcChannelNumber);
        endRow(first);
    }

    /**
     * Tokens, file GUID and stage references ({@code r}, already resolved) into the second half, ending the row
     * there. Uses nothing that {@link #writeFirst} uses, so the two can run on two threads.
     */
    @Override
    public void writeSecond(EventScan e, String fileGuid, StageRefs r) {
        byte[] b = e.buf();
        int tokens = e.tokenCount;
        if (tokens == 0) {
            tokenName.writeNull(0, 1);
            token.writeNull(0, 1);
        } else {
            for (int i = 0; i < tokens; i++) {
                int repetition = i == 0 ? 0 : 1;
                // views of the event's bytes: the encoders copy what they keep
                tokenName.writeBytes(b, e.nameOff[i], e.nameLen[i], repetition, 2, i);
                token.writeBytes(b, e.tokenOff[i], e.tokenLen[i], repetition, 2);
            }
        }
        guid.writeString(fileGuid, 0, 0);
        optional(dbRaw, r.dbRaw);
        optional(dbEsd, r.dbEsd);
        optional(dbAod, r.dbAod);
        optional(db, r.db);
        endRow(second);
    }

    private static void endRow(ColumnEncoder[] half) {
        for (ColumnEncoder c : half) {
            c.endRow();
        }
    }

    private static void optional(ValueColumn w, boolean present, int value) {
        if (present) {
            w.writeInt(value, 0, 1);
        } else {
            w.writeNull(0, 0);
        }
    }

    private static void optional(ValueColumn w, byte[] b, int off, int len) {
        if (off >= 0) {
            w.writeBytes(b, off, len, 0, 1);
        } else {
            w.writeNull(0, 0);
        }
    }

    private static void optional(ValueColumn w, String value) {
        if (value != null) {
            w.writeString(value, 0, 1);
        } else {
            w.writeNull(0, 0);
        }
    }

    /** Buffered bytes of the row group, both halves (call with no half being written). */
    @Override
    public long bufferedBytes() {
        long n = 0;
        for (ColumnEncoder c : first) {
            n += c.bufferedBytes();
        }
        for (ColumnEncoder c : second) {
            n += c.bufferedBytes();
        }
        return n;
    }

    /** Writes the row group's column chunks in schema order (call with no half being written). */
    @Override
    public void writeTo(ParquetFileWriter file) throws IOException {
        for (ColumnEncoder c : first) {
            c.writeTo(file);
        }
        for (ColumnEncoder c : second) {
            c.writeTo(file);
        }
    }

    /** Drops the buffered row group. */
    @Override
    public void reset() {
        for (ColumnEncoder c : first) {
            c.reset();
        }
        for (ColumnEncoder c : second) {
            c.reset();
        }
    }
}
