package org.eventindex.consolidated;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.eventindex.spb.EventScan;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * Writes {@link ConsolidatedSchema#SCHEMA} rows straight into the column writers of a row group, value by value with
 * their repetition and definition levels. This is what parquet-mr's record API ({@code RecordConsumer} over
 * {@code MessageColumnIO}) does for any schema with per-field bookkeeping (field markers, null caches, group
 * levels); for one fixed schema the levels are known in advance:
 * <ul>
 *   <li>required top-level column: r = 0, d = 0;</li>
 *   <li>optional top-level column: d = 1 with a value, a null with d = 0;</li>
 *   <li>{@code eitoken.list.element.{name,token}} (optional LIST of required elements): an empty list is a null
 *       with d = 1 (the list itself is always present, so "no tokens" reads back as an empty list); each token is
 *       d = 2, r = 0 for the first element of the row and r = 1 for the next ones.</li>
 * </ul>
 * The columns are split over two {@link ColumnWriteStore}s ({@link #FIRST}, {@link #SECOND}) so that two threads
 * can encode one row group; {@link #bind} switches to the next row group's stores.
 */
final class EventColumns {
    private static final int STRING_CACHE_MAX = 16_384;
    private static final List<String> PATHS = List.of(ConsolidatedSchema.RUN_NUMBER,
            ConsolidatedSchema.EVENT_NUMBER, ConsolidatedSchema.LUMI_BLOCK, ConsolidatedSchema.TIME_STAMP,
            ConsolidatedSchema.TIME_STAMP_NS_OFFSET, ConsolidatedSchema.BCID, ConsolidatedSchema.EXTENDED_LEVEL1_ID,
            ConsolidatedSchema.IS_SIMULATION, ConsolidatedSchema.IS_CALIBRATION, ConsolidatedSchema.IS_TEST_BEAM,
            ConsolidatedSchema.L1_PASSED_TRIG_MASK, ConsolidatedSchema.L2_PASSED_TRIG_MASK,
            ConsolidatedSchema.EF_PASSED_TRIG_MASK, ConsolidatedSchema.SMK, ConsolidatedSchema.HLTPSK,
            ConsolidatedSchema.L1PSK, ConsolidatedSchema.MC_EVENT_WEIGHT, ConsolidatedSchema.MC_CHANNEL_NUMBER,
            ConsolidatedSchema.EITOKEN + "." + ConsolidatedSchema.LIST + "." + ConsolidatedSchema.ELEMENT + "."
                    + ConsolidatedSchema.NAME,
            ConsolidatedSchema.EITOKEN + "." + ConsolidatedSchema.LIST + "." + ConsolidatedSchema.ELEMENT + "."
                    + ConsolidatedSchema.TOKEN,
            ConsolidatedSchema.GUID, ConsolidatedSchema.DB_RAW, ConsolidatedSchema.TK_RAW, ConsolidatedSchema.DB_ESD,
            ConsolidatedSchema.TK_ESD, ConsolidatedSchema.DB_AOD, ConsolidatedSchema.TK_AOD, ConsolidatedSchema.DB,
            ConsolidatedSchema.TK);

    private final HashMap<String, Binary> strings = new HashMap<>();
    private ColumnWriteStore store;
    private ColumnWriteStore store2;
    private ColumnWriter run;
    private ColumnWriter event;
    private ColumnWriter lumiBlock;
    private ColumnWriter timeStamp;
    private ColumnWriter timeStampNs;
    private ColumnWriter bcid;
    private ColumnWriter extendedL1;
    private ColumnWriter simulation;
    private ColumnWriter calibration;
    private ColumnWriter testBeam;
    private ColumnWriter l1Mask;
    private ColumnWriter l2Mask;
    private ColumnWriter efMask;
    private ColumnWriter smk;
    private ColumnWriter hltpsk;
    private ColumnWriter l1psk;
    private ColumnWriter mcWeight;
    private ColumnWriter mcChannel;
    private ColumnWriter tokenName;
    private ColumnWriter token;
    private ColumnWriter guid;
    private ColumnWriter dbRaw;
    private ColumnWriter tkRaw;
    private ColumnWriter dbEsd;
    private ColumnWriter tkEsd;
    private ColumnWriter dbAod;
    private ColumnWriter tkAod;
    private ColumnWriter db;
    private ColumnWriter tk;

    static {
        List<ColumnDescriptor> columns = ConsolidatedSchema.SCHEMA.getColumns();
        if (columns.size() != PATHS.size()) {
            throw new IllegalStateException("EventColumns knows " + PATHS.size() + " columns, the schema has "
                    + columns.size());
        }
        for (int i = 0; i < columns.size(); i++) {
            String path = String.join(".", columns.get(i).getPath());
            if (!path.equals(PATHS.get(i))) {
                throw new IllegalStateException("column " + i + " of the schema is " + path + ", EventColumns "
                        + "writes " + PATHS.get(i));
            }
        }
    }

    /**
     * The first {@code SPLIT} columns (the event's own fields) and the others (tokens, file GUID, stage references)
     * are written to two column stores, which can be filled by two threads; a row group holds both, in schema order.
     */
    static final int SPLIT = 18;

    /** The two halves of the schema, with the same paths and levels as in {@link ConsolidatedSchema#SCHEMA}. */
    static final MessageType FIRST = part(0, SPLIT);
    static final MessageType SECOND = part(SPLIT, PATHS.size());

    private static MessageType part(int from, int to) {
        List<ColumnDescriptor> columns = ConsolidatedSchema.SCHEMA.getColumns();
        List<Type> fields = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Type top = ConsolidatedSchema.SCHEMA.getType(columns.get(i).getPath()[0]);
            if (!fields.contains(top)) {
                fields.add(top);
            }
        }
        return new MessageType(ConsolidatedSchema.SCHEMA.getName(), fields);
    }

    /** Writes the following rows into {@code first} and {@code second} (a new row group's stores). */
    void bind(ColumnWriteStore first, ColumnWriteStore second) {
        this.store = first;
        this.store2 = second;
        List<ColumnDescriptor> c = ConsolidatedSchema.SCHEMA.getColumns();
        int i = 0;
        ColumnWriteStore next = first;
        run = next.getColumnWriter(c.get(i++));
        event = next.getColumnWriter(c.get(i++));
        lumiBlock = next.getColumnWriter(c.get(i++));
        timeStamp = next.getColumnWriter(c.get(i++));
        timeStampNs = next.getColumnWriter(c.get(i++));
        bcid = next.getColumnWriter(c.get(i++));
        extendedL1 = next.getColumnWriter(c.get(i++));
        simulation = next.getColumnWriter(c.get(i++));
        calibration = next.getColumnWriter(c.get(i++));
        testBeam = next.getColumnWriter(c.get(i++));
        l1Mask = next.getColumnWriter(c.get(i++));
        l2Mask = next.getColumnWriter(c.get(i++));
        efMask = next.getColumnWriter(c.get(i++));
        smk = next.getColumnWriter(c.get(i++));
        hltpsk = next.getColumnWriter(c.get(i++));
        l1psk = next.getColumnWriter(c.get(i++));
        mcWeight = next.getColumnWriter(c.get(i++));
        mcChannel = next.getColumnWriter(c.get(i++));
        next = second;
        tokenName = next.getColumnWriter(c.get(i++));
        token = next.getColumnWriter(c.get(i++));
        guid = next.getColumnWriter(c.get(i++));
        dbRaw = next.getColumnWriter(c.get(i++));
        tkRaw = next.getColumnWriter(c.get(i++));
        dbEsd = next.getColumnWriter(c.get(i++));
        tkEsd = next.getColumnWriter(c.get(i++));
        dbAod = next.getColumnWriter(c.get(i++));
        tkAod = next.getColumnWriter(c.get(i++));
        db = next.getColumnWriter(c.get(i++));
        tk = next.getColumnWriter(c.get(i));
    }

    /** The event's own fields into the first store, ending the row there. */
    void writeFirst(EventScan e) {
        byte[] b = e.buf();
        run.write(e.runNumber, 0, 0);
        event.write(e.eventNumber, 0, 0);
        lumiBlock.write(e.lumiBlock, 0, 0);
        timeStamp.write(e.timeStamp, 0, 0);
        timeStampNs.write(e.timeStampNSOffset, 0, 0);
        bcid.write(e.bcid, 0, 0);
        optional(extendedL1, e.hasExtendedLevel1ID, e.extendedLevel1ID);
        simulation.write(e.isSimulation, 0, 0);
        calibration.write(e.isCalibration, 0, 0);
        testBeam.write(e.isTestBeam, 0, 0);
        optional(l1Mask, b, e.l1MaskOff, e.l1MaskLen);
        optional(l2Mask, b, e.l2MaskOff, e.l2MaskLen);
        optional(efMask, b, e.efMaskOff, e.efMaskLen);
        optional(smk, e.hasSmk, e.smk);
        optional(hltpsk, e.hasHltpsk, e.hltpsk);
        optional(l1psk, e.hasL1psk, e.l1psk);
        if (e.hasMcEventWeight) {
            mcWeight.write(e.mcEventWeight, 0, 1);
        } else {
            mcWeight.writeNull(0, 0);
        }
        optional(mcChannel, e.hasMcChannelNumber, e.mcChannelNumber);
        store.endRecord();
    }

    /**
     * Tokens, file GUID and stage references ({@code r}, already resolved) into the second store, ending the row
     * there. Uses nothing that {@link #writeFirst} uses, so the two can run on two threads.
     */
    void writeSecond(EventScan e, String fileGuid, StageRefs r) {
        byte[] b = e.buf();
        int tokens = e.tokenCount;
        if (tokens == 0) {
            tokenName.writeNull(0, 1);
            token.writeNull(0, 1);
        } else {
            for (int i = 0; i < tokens; i++) {
                int repetition = i == 0 ? 0 : 1;
                // views of the event's bytes: the writers encode at once and copy what they keep (dictionary
                // entries, statistics)
                tokenName.write(Binary.fromReusedByteArray(b, e.nameOff[i], e.nameLen[i]), repetition, 2);
                token.write(Binary.fromReusedByteArray(b, e.tokenOff[i], e.tokenLen[i]), repetition, 2);
            }
        }
        guid.write(string(fileGuid), 0, 0);
        optional(dbRaw, r.dbRaw);
        optionalToken(tkRaw, e, r.tkRaw);
        optional(dbEsd, r.dbEsd);
        optionalToken(tkEsd, e, r.tkEsd);
        optional(dbAod, r.dbAod);
        optionalToken(tkAod, e, r.tkAod);
        optional(db, r.db);
        optionalToken(tk, e, r.tk);
        store2.endRecord();
    }

    private static void optional(ColumnWriter w, boolean present, int value) {
        if (present) {
            w.write(value, 0, 1);
        } else {
            w.writeNull(0, 0);
        }
    }

    private static void optional(ColumnWriter w, byte[] b, int off, int len) {
        if (off >= 0) {
            w.write(Binary.fromReusedByteArray(b, off, len), 0, 1);
        } else {
            w.writeNull(0, 0);
        }
    }

    private static void optionalToken(ColumnWriter w, EventScan e, int token) {
        if (token != StageRefs.NONE) {
            w.write(Binary.fromReusedByteArray(e.buf(), e.tokenOff[token], e.tokenLen[token]), 0, 1);
        } else {
            w.writeNull(0, 0);
        }
    }

    private void optional(ColumnWriter w, String value) {
        if (value != null) {
            w.write(string(value), 0, 1);
        } else {
            w.writeNull(0, 0);
        }
    }

    /** GUID columns: a few distinct values per file, so their encoded Binary is cached (bounded). */
    private Binary string(String value) {
        Binary b = strings.get(value);
        if (b == null) {
            b = Binary.fromConstantByteArray(value.getBytes(StandardCharsets.UTF_8));
            if (strings.size() >= STRING_CACHE_MAX) {
                strings.clear();
            }
            strings.put(value, b);
        }
        return b;
    }
}
