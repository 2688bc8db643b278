package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.ColumnSchema.CompressionAlgorithm;
import org.apache.kudu.ColumnSchema.Encoding;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.PartialRow;
import org.eventindex.names.DatasetName;

import java.util.ArrayList;
import java.util.List;

/**
 * Column names and schemas of the EventIndex tables (seed 001 §5.3, Tables 1 and 2).
 * <p>
 * Encodings follow the seed: numbers and timestamps BIT_SHUFFLE + LZ4, strings DICT_ENCODING + SNAPPY, key columns
 * included. Names are the seed's, lower case, with two of its misprints corrected: Table 1's {@code tigger_counted}
 * is {@code trigger_counted} and Table 2's {@code dbdraw} is {@code dbraw} (next to {@code dbesd}, {@code dbaod}).
 * Added to the seed: DATASETS {@code load_id} (the consumer signal whose content is loaded), {@code hdfs_path},
 * {@code signal_ts} and {@code content_checksum};
 * EVENTS {@code runnumber} and {@code smk}.
 * <p>
 * Trigger masks are stored as 64-bit words (seed 001 §6.1) {@code l1w00..l1w23} and {@code hltw000..hltw191}, a zero
 * word stored as NULL (except word 0 of a present mask with no bit set, stored as 0, so that an absent mask, all NULL,
 * and an empty one stay apart), BIT_SHUFFLE + LZ4, so one trigger bit is selected in SQL with
 * {@code getbit(l1w16, 5) = 1} (TAV bit 5). The words are lossless: {@link TriggerMaskColumns} gives the coded text
 * back. The coded text itself ({@link #L1TRIGMASK}, {@link #EFTRIGMASK}) is no longer a column of tables created
 * now (decision 0037: 113 B of 289 B per event, no reader needs it, the consolidated file keeps it); tables created
 * by an earlier version keep the columns and the loader keeps filling them. The {@code *trigchains*} columns are kept
 * for the seed's schema and left null until chains are decoded from menus. MCEVENTS has the EVENTS schema (the
 * provenance columns stay null).
 */
public final class KuduSchemas {
    // DATASETS
    /** Block size of the columns a lookup reads (see {@code lookupColumn}). */
    static final int LOOKUP_BLOCK_BYTES = 32 * 1024;

    public static final String RUNNUMBER = "runnumber";
    public static final String PROJECT = "project";
    public static final String STREAMNAME = "streamname";
    public static final String PRODSTEP = "prodstep";
    public static final String DATATYPE = "datatype";
    public static final String VERSION = "version";
    public static final String RGID = "rgid";
    public static final String INSERT_START = "insert_start";
    public static final String INSERT_END = "insert_end";
    public static final String COUNT_EVENTS = "count_events";
    public static final String UNIQ_DUPL_EVENTS = "uniq_dupl_events";
    public static final String NUM_DUPLICATES = "num_duplicates";
    public static final String STATE = "state";
    public static final String SMK = "smk";
    public static final String LOAD_ID = "load_id";
    public static final String HDFS_PATH = "hdfs_path";
    /**
     * When the supervisor selected the content of the load in this row (its signal's {@code ts}, ms since the epoch);
     * null for loads without one (the kudu-loader command).
     */
    public static final String SIGNAL_TS = "signal_ts";
    /**
     * The content checksum of the rows the load wrote (EVENTS or MCEVENTS and DUPLICATEDEVENTS, the loader's
     * {@code RowChecksum} summed), what {@code eventindex verify} compares the file and Kudu with; null for loads by a
     * version before it (decision 0070).
     */
    public static final String CONTENT_CHECKSUM = "content_checksum";

    // EVENTS and DUPLICATEDEVENTS
    public static final String DSPID = "dspid";
    public static final String EVENTNUMBER = "eventnumber";
    public static final String INSERTION_TIME = "insertion_time";
    public static final String HLTPSK = "hltpsk";
    public static final String L1PSK = "l1psk";
    public static final String LUMIBLOCKNR = "lumiblocknr";
    public static final String BUNCHID = "bunchid";
    public static final String EVENTTIME = "eventtime";
    public static final String EVENTTIMES = "eventtimes";
    public static final String LVLID = "lvlid";
    /**
     * The L1 mask's coded text: a column only of event tables created before decision 0037 (filled while it exists,
     * dropped with {@code kudu table delete_column}, see docs/operations.md); not in {@link #events()}.
     */
    public static final String L1TRIGMASK = "l1trigmask";
    /** The HLT/EF mask's coded text: like {@link #L1TRIGMASK}. */
    public static final String EFTRIGMASK = "eftrigmask";
    public static final String DBRAW = "dbraw";
    public static final String TKRAW = "tkraw";
    public static final String DBESD = "dbesd";
    public static final String TKESD = "tkesd";
    public static final String DBAOD = "dbaod";
    public static final String TKAOD = "tkaod";
    public static final String DB = "db";
    public static final String TK = "tk";

    // EVENTSOVERLAP and TRIGGERCOUNT
    public static final String DS1 = "ds1";
    public static final String DS2 = "ds2";
    public static final String DATASET_ID = "dataset_id";
    public static final String TRIG1 = "trig1";
    public static final String TRIG2 = "trig2";
    public static final String COUNT = "count";

    /** L1 mask words: 1536 bits = 24 words; words 0-7 TBP, 8-15 TAP, 16-23 TAV. */
    public static final int L1_WORDS = 24;
    /** HLT mask words: 3 x 4096 bits = 192 words; 0-63 physics, 64-127 passed-through, 128-191 resurrected. */
    public static final int HLT_WORDS = 192;

    /** Column of L1 mask word {@code w} (bits 64w..64w+63, bit i of the word = mask bit 64w+i). */
    public static String l1Word(int w) {
        return String.format("l1w%02d", w);
    }

    /** Column of HLT mask word {@code w}. */
    public static String hltWord(int w) {
        return String.format("hltw%03d", w);
    }

    public static final List<String> EVENTSOVERLAP_KEY = List.of(DS1, DS2);
    public static final List<String> TRIGGERCOUNT_KEY = List.of(DATASET_ID, TRIG1, TRIG2);

    /** Key of EVENTS, in order; DUPLICATEDEVENTS appends {@link #INSERTION_TIME}. */
    public static final List<String> EVENTS_KEY = List.of(DSPID, EVENTNUMBER, RGID);
    public static final List<String> DUPLICATED_EVENTS_KEY = List.of(DSPID, EVENTNUMBER, RGID, INSERTION_TIME);
    public static final List<String> DATASETS_KEY = List.of(RUNNUMBER, PROJECT, STREAMNAME, PRODSTEP, DATATYPE,
            VERSION);

    private KuduSchemas() {
    }

    /** Seed Table 1 plus {@code load_id} and {@code hdfs_path}. Unpartitioned apart from a few hash buckets. */
    public static Schema datasets() {
        List<ColumnSchema> c = new ArrayList<>();
        c.add(key(RUNNUMBER, Type.INT32));
        c.add(key(PROJECT, Type.STRING));
        c.add(key(STREAMNAME, Type.STRING));
        c.add(key(PRODSTEP, Type.STRING));
        c.add(key(DATATYPE, Type.STRING));
        c.add(key(VERSION, Type.STRING));
        c.add(column(DSPID, Type.INT32));
        c.add(column(RGID, Type.INT32));
        c.add(column(INSERT_START, Type.UNIXTIME_MICROS));
        c.add(column(INSERT_END, Type.UNIXTIME_MICROS));
        c.add(column("backup_start", Type.UNIXTIME_MICROS));
        c.add(column("backup_end", Type.UNIXTIME_MICROS));
        c.add(column("validated", Type.UNIXTIME_MICROS));
        c.add(column(COUNT_EVENTS, Type.INT64));
        c.add(column(UNIQ_DUPL_EVENTS, Type.INT64));
        c.add(column(NUM_DUPLICATES, Type.INT64));
        c.add(column("trigger_counted", Type.INT32));
        c.add(column("ds_overlaps", Type.INT32));
        c.add(column("ami_count", Type.INT64));
        c.add(column("ami_raw_count", Type.INT64));
        c.add(column("ami_date", Type.UNIXTIME_MICROS));
        c.add(column("ami_upd_date", Type.UNIXTIME_MICROS));
        c.add(column("ami_state", Type.STRING));
        c.add(column("incontainer", Type.INT32));
        c.add(column(STATE, Type.STRING));
        c.add(column(SMK, Type.INT32));
        c.add(column(LOAD_ID, Type.STRING));
        c.add(column(HDFS_PATH, Type.STRING));
        c.add(column(SIGNAL_TS, Type.INT64));
        c.add(column(CONTENT_CHECKSUM, Type.INT64));
        return new Schema(c);
    }

    /** Seed Table 2 plus {@code runnumber} and {@code smk}. */
    public static Schema events() {
        List<ColumnSchema> c = new ArrayList<>();
        c.add(key(DSPID, Type.INT32));
        c.add(key(EVENTNUMBER, Type.INT64));
        c.add(key(RGID, Type.INT32));
        addEventColumns(c);
        return new Schema(c);
    }

    /**
     * The coded mask text columns ({@link #L1TRIGMASK}, {@link #EFTRIGMASK}) as event tables created before decision
     * 0037 have them; not part of {@link #events()}. For tests and benchmarks that make such a table.
     */
    public static List<ColumnSchema> maskTextColumns() {
        return List.of(column(L1TRIGMASK, Type.STRING), column(EFTRIGMASK, Type.STRING));
    }

    /** EVENTS with {@code insertion_time} appended to the key. */
    public static Schema duplicatedEvents() {
        List<ColumnSchema> c = new ArrayList<>();
        c.add(key(DSPID, Type.INT32));
        c.add(key(EVENTNUMBER, Type.INT64));
        c.add(key(RGID, Type.INT32));
        c.add(key(INSERTION_TIME, Type.UNIXTIME_MICROS));
        addEventColumns(c);
        return new Schema(c);
    }

    /** (ds1, ds2) -> events of ds1 whose (run, event) also is in ds2; one row per direction. */
    public static Schema eventsOverlap() {
        return new Schema(List.of(key(DS1, Type.INT32), key(DS2, Type.INT32), column(COUNT, Type.INT64)));
    }

    /** (dataset_id, trig1, trig2) -> events of the dataset where both triggers fired (trig1 <= trig2). */
    public static Schema triggerCount() {
        return new Schema(List.of(key(DATASET_ID, Type.INT32), key(TRIG1, Type.INT32), key(TRIG2, Type.INT32),
                column(COUNT, Type.INT64)));
    }

    private static void addEventColumns(List<ColumnSchema> c) {
        c.add(column(HLTPSK, Type.INT32));
        c.add(column(L1PSK, Type.INT32));
        c.add(column(LUMIBLOCKNR, Type.INT32));
        c.add(column(BUNCHID, Type.INT32));
        c.add(column(EVENTTIME, Type.INT32));
        c.add(column(EVENTTIMES, Type.INT32));
        c.add(column(LVLID, Type.INT64));
        c.add(column("l1trigchainstav", Type.STRING));
        c.add(column("l1trigchainstap", Type.STRING));
        c.add(column("l1trigchainsthp", Type.STRING));
        c.add(column("eftrigchainsph", Type.STRING));
        c.add(column("eftrigchainstap", Type.STRING));
        c.add(column("eftrigchainsthp", Type.STRING));
        c.add(lookupColumn(DBRAW, Type.STRING));
        c.add(lookupColumn(TKRAW, Type.STRING));
        c.add(lookupColumn(DBESD, Type.STRING));
        c.add(lookupColumn(TKESD, Type.STRING));
        c.add(lookupColumn(DBAOD, Type.STRING));
        c.add(lookupColumn(TKAOD, Type.STRING));
        c.add(lookupColumn(DB, Type.STRING));
        c.add(lookupColumn(TK, Type.STRING));
        c.add(lookupColumn(RUNNUMBER, Type.INT32));
        c.add(column(SMK, Type.INT32));
        for (int w = 0; w < L1_WORDS; w++) {
            c.add(column(l1Word(w), Type.INT64));
        }
        for (int w = 0; w < HLT_WORDS; w++) {
            c.add(column(hltWord(w), Type.INT64));
        }
    }

    private static ColumnSchema key(String name, Type type) {
        return builder(name, type).key(true).nullable(false).build();
    }

    private static ColumnSchema column(String name, Type type) {
        return builder(name, type).nullable(true).build();
    }

    /**
     * A column that every event lookup reads for a single row. A point scan decodes one whole block of each projected
     * column (a bit-shuffled block at once), so these columns get blocks of {@link #LOOKUP_BLOCK_BYTES} instead of the
     * tablet server's default 256 KiB: less work per lookup for a slightly larger column on disk.
     */
    private static ColumnSchema lookupColumn(String name, Type type) {
        return builder(name, type).nullable(true).desiredBlockSize(LOOKUP_BLOCK_BYTES).build();
    }

    private static ColumnSchema.ColumnSchemaBuilder builder(String name, Type type) {
        ColumnSchema.ColumnSchemaBuilder b = new ColumnSchema.ColumnSchemaBuilder(name, type);
        if (type == Type.STRING) {
            return b.encoding(Encoding.DICT_ENCODING).compressionAlgorithm(CompressionAlgorithm.SNAPPY);
        }
        return b.encoding(Encoding.BIT_SHUFFLE).compressionAlgorithm(CompressionAlgorithm.LZ4);
    }

    /** Sets the DATASETS primary key of {@code name} (run, project, stream, prodstep, datatype, version+suffix). */
    public static void addDatasetKey(PartialRow row, DatasetName name) {
        row.addInt(RUNNUMBER, name.runNumber());
        row.addString(PROJECT, name.project());
        row.addString(STREAMNAME, name.stream());
        row.addString(PRODSTEP, name.prodStep());
        row.addString(DATATYPE, name.dataType());
        row.addString(VERSION, name.version() + name.suffix());
    }

    /**
     * Sets the key of an event row of EVENTS or MCEVENTS (the first three key columns of DUPLICATEDEVENTS): its
     * dataset's {@code dspid}, its event number, its epoch ({@code rgid}).
     */
    public static void addEventKey(PartialRow row, int dspid, long eventNumber, int rgid) {
        row.addInt(DSPID, dspid);
        row.addLong(EVENTNUMBER, eventNumber);
        row.addInt(RGID, rgid);
    }
}
