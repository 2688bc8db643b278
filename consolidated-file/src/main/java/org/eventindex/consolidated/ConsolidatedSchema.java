package org.eventindex.consolidated;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * The Parquet schema of the consolidated dataset file: one row per event, every {@code EIEvent_p1} field (proto
 * unsigned integers as Parquet unsigned logical types, optional proto fields as optional columns, the token list as
 * a standard 3-level LIST), the GUID of the file the event was indexed from, and the per-stage file GUIDs derived
 * from the tokens (RAW, ESD, AOD and the event's own file). The stage tokens themselves are the {@code eitoken}
 * list's entries; format 1 also stored them again as {@code tk_*} columns ({@link #FORMAT_VERSION_1}).
 * <p>
 * Rows are sorted by (run, event); the footer's key-value metadata is described by the {@code META_*} keys.
 */
public final class ConsolidatedSchema {
    public static final String RUN_NUMBER = "run_number";
    public static final String EVENT_NUMBER = "event_number";
    public static final String LUMI_BLOCK = "lumi_block";
    public static final String TIME_STAMP = "time_stamp";
    public static final String TIME_STAMP_NS_OFFSET = "time_stamp_ns_offset";
    public static final String BCID = "bcid";
    public static final String EXTENDED_LEVEL1_ID = "extended_level1_id";
    public static final String IS_SIMULATION = "is_simulation";
    public static final String IS_CALIBRATION = "is_calibration";
    public static final String IS_TEST_BEAM = "is_test_beam";
    public static final String L1_PASSED_TRIG_MASK = "l1_passed_trig_mask";
    public static final String L2_PASSED_TRIG_MASK = "l2_passed_trig_mask";
    public static final String EF_PASSED_TRIG_MASK = "ef_passed_trig_mask";
    public static final String SMK = "smk";
    public static final String HLTPSK = "hltpsk";
    public static final String L1PSK = "l1psk";
    public static final String MC_EVENT_WEIGHT = "mc_event_weight";
    public static final String MC_CHANNEL_NUMBER = "mc_channel_number";
    public static final String EITOKEN = "eitoken";
    public static final String LIST = "list";
    public static final String ELEMENT = "element";
    public static final String NAME = "name";
    public static final String TOKEN = "token";
    public static final String GUID = "guid";
    public static final String DB_RAW = "db_raw";
    public static final String DB_ESD = "db_esd";
    public static final String DB_AOD = "db_aod";
    public static final String DB = "db";

    /** File metadata keys (footer key-value metadata). */
    public static final String META_FORMAT = "eventindex.format";
    public static final String META_DATASET = "eventindex.dataset";
    public static final String META_SIGNAL_ID = "eventindex.signal_id";
    public static final String META_HEADER = "eventindex.header";
    public static final String META_OBJECTS = "eventindex.objects";
    public static final String META_FILES = "eventindex.files";
    /** Format 3 on: the distinct trigger menus, each once; the files refer to them by index. */
    public static final String META_TRIGGER_MENUS = "eventindex.trigger_menus";
    public static final String META_EVENTS = "eventindex.events";
    public static final String META_RUNS = "eventindex.runs";
    public static final String META_SIMULATION = "eventindex.simulation_events";
    public static final String META_END_PROC_TIME = "eventindex.end_proc_time";
    public static final String META_CHECKSUM = "eventindex.rows_sha256";
    /**
     * The format written: format 2 with each distinct trigger menu stored once ({@link #META_TRIGGER_MENUS}) instead
     * of whole in every file entry of {@link #META_FILES}; the columns are those of format 2.
     */
    public static final String FORMAT_VERSION = "eventindex-consolidated-3";
    /** Format 1 without the {@code tk_*} copies of the stage tokens; still read. */
    public static final String FORMAT_VERSION_2 = "eventindex-consolidated-2";
    /**
     * The first format, still read: the same columns plus {@code tk_raw}, {@code tk_esd}, {@code tk_aod} and
     * {@code tk} after each stage's GUID, copies of tokens the {@code eitoken} list holds (the reader skips them).
     */
    public static final String FORMAT_VERSION_1 = "eventindex-consolidated-1";

    /** File name suffix of the consolidated dataset file. */
    public static final String SUFFIX = ".parquet";

    private static final LogicalTypeAnnotation U32 = LogicalTypeAnnotation.intType(32, false);
    private static final LogicalTypeAnnotation U64 = LogicalTypeAnnotation.intType(64, false);
    private static final LogicalTypeAnnotation STRING = LogicalTypeAnnotation.stringType();

    public static final MessageType SCHEMA = Types.buildMessage()
            .required(PrimitiveTypeName.INT32).as(U32).named(RUN_NUMBER)
            .required(PrimitiveTypeName.INT64).as(U64).named(EVENT_NUMBER)
            .required(PrimitiveTypeName.INT32).as(U32).named(LUMI_BLOCK)
            .required(PrimitiveTypeName.INT32).as(U32).named(TIME_STAMP)
            .required(PrimitiveTypeName.INT32).as(U32).named(TIME_STAMP_NS_OFFSET)
            .required(PrimitiveTypeName.INT32).as(U32).named(BCID)
            .optional(PrimitiveTypeName.INT32).as(U32).named(EXTENDED_LEVEL1_ID)
            .required(PrimitiveTypeName.BOOLEAN).named(IS_SIMULATION)
            .required(PrimitiveTypeName.BOOLEAN).named(IS_CALIBRATION)
            .required(PrimitiveTypeName.BOOLEAN).named(IS_TEST_BEAM)
            .optional(PrimitiveTypeName.BINARY).as(STRING).named(L1_PASSED_TRIG_MASK)
            .optional(PrimitiveTypeName.BINARY).as(STRING).named(L2_PASSED_TRIG_MASK)
            .optional(PrimitiveTypeName.BINARY).as(STRING).named(EF_PASSED_TRIG_MASK)
            .optional(PrimitiveTypeName.INT32).as(U32).named(SMK)
            .optional(PrimitiveTypeName.INT32).as(U32).named(HLTPSK)
            .optional(PrimitiveTypeName.INT32).as(U32).named(L1PSK)
            .optional(PrimitiveTypeName.FLOAT).named(MC_EVENT_WEIGHT)
            .optional(PrimitiveTypeName.INT32).as(U32).named(MC_CHANNEL_NUMBER)
            .optionalGroup().as(LogicalTypeAnnotation.listType())
                .repeatedGroup()
                    .requiredGroup()
                        .required(PrimitiveTypeName.BINARY).as(STRING).named(NAME)
                        .required(PrimitiveTypeName.BINARY).as(STRING).named(TOKEN)
                    .named(ELEMENT)
                .named(LIST)
            .named(EITOKEN)
            .required(PrimitiveTypeName.BINARY).as(STRING).named(GUID)
            .optional(PrimitiveTypeName.BINARY).as(STRING).named(DB_RAW)
            .optional(PrimitiveTypeName.BINARY).as(STRING).named(DB_ESD)
            .optional(PrimitiveTypeName.BINARY).as(STRING).named(DB_AOD)
            .optional(PrimitiveTypeName.BINARY).as(STRING).named(DB)
            .named("eventindex_event");

    /**
     * Row group size. Event picking reads one (run, event): with rows sorted, the row-group and page min/max
     * statistics (and the column/offset index Parquet writes by default) prune to one page per projected column.
     * Small row groups help selective reads (seed 004: 30 MB baskets made a 1% selection pay ~400% per event; 5-10
     * event baskets brought it to ~70%), but every row group costs a footer entry and a seek per column on full
     * scans; 32 MiB keeps a 30M-event dataset at a few dozen row groups, one HDFS block (128 MiB) holding several.
     */
    public static final long ROW_GROUP_BYTES = 32L * 1024 * 1024;

    /** Page size: the unit read for a point lookup, ~1,000-2,000 events of a token column. */
    public static final int PAGE_BYTES = 64 * 1024;

    private ConsolidatedSchema() {
    }
}
