package org.eventindex.consolidated;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** Writes {@link ConsolidatedSchema#SCHEMA} rows straight from {@code EIEvent_p1}, field by field. */
final class EventWriteSupport extends WriteSupport<EventWriteSupport.Row> {

    /** A row being written: the event and the GUID of its file. Reused. */
    static final class Row {
        EIEvent_p1 event;
        String guid;
        /** The event's stage references if already computed (on another thread), else null. */
        StageRefs refs;
    }

    volatile Map<String, String> metadata = Map.of();
    private final StageRefs refs = new StageRefs();
    private RecordConsumer rc;
    private static final int STRING_CACHE_MAX = 16_384;
    private final HashMap<String, Binary> strings = new HashMap<>();
    private byte[] scratch = new byte[4096];

    @Override
    public WriteContext init(Configuration configuration) {
        return new WriteContext(ConsolidatedSchema.SCHEMA, Map.of());
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return new WriteContext(ConsolidatedSchema.SCHEMA, Map.of());
    }

    @Override
    public String getName() {
        return "eventindex";
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.rc = recordConsumer;
    }

    @Override
    public FinalizedWriteContext finalizeWrite() {
        return new FinalizedWriteContext(new HashMap<>(metadata));
    }

    @Override
    public void write(Row row) {
        EIEvent_p1 e = row.event;
        StageRefs refs = row.refs != null ? row.refs : this.refs.of(e, row.guid);
        rc.startMessage();
        int i = 0;
        i = int32(i, ConsolidatedSchema.RUN_NUMBER, e.getRunNumber());
        rc.startField(ConsolidatedSchema.EVENT_NUMBER, i);
        rc.addLong(e.getEventNumber());
        rc.endField(ConsolidatedSchema.EVENT_NUMBER, i++);
        i = int32(i, ConsolidatedSchema.LUMI_BLOCK, e.getLumiBlock());
        i = int32(i, ConsolidatedSchema.TIME_STAMP, e.getTimeStamp());
        i = int32(i, ConsolidatedSchema.TIME_STAMP_NS_OFFSET, e.getTimeStampNSOffset());
        i = int32(i, ConsolidatedSchema.BCID, e.getBcid());
        i = e.hasExtendedLevel1ID() ? int32(i, ConsolidatedSchema.EXTENDED_LEVEL1_ID, e.getExtendedLevel1ID()) : i + 1;
        i = bool(i, ConsolidatedSchema.IS_SIMULATION, e.getIsSimulation());
        i = bool(i, ConsolidatedSchema.IS_CALIBRATION, e.getIsCalibration());
        i = bool(i, ConsolidatedSchema.IS_TEST_BEAM, e.getIsTestBeam());
        i = bytes(i, ConsolidatedSchema.L1_PASSED_TRIG_MASK, e.hasL1PassedTrigMask() ? e.getL1PassedTrigMaskBytes() : null);
        i = bytes(i, ConsolidatedSchema.L2_PASSED_TRIG_MASK, e.hasL2PassedTrigMask() ? e.getL2PassedTrigMaskBytes() : null);
        i = bytes(i, ConsolidatedSchema.EF_PASSED_TRIG_MASK, e.hasEFPassedTrigMask() ? e.getEFPassedTrigMaskBytes() : null);
        i = e.hasSMK() ? int32(i, ConsolidatedSchema.SMK, e.getSMK()) : i + 1;
        i = e.hasHLTPSK() ? int32(i, ConsolidatedSchema.HLTPSK, e.getHLTPSK()) : i + 1;
        i = e.hasL1PSK() ? int32(i, ConsolidatedSchema.L1PSK, e.getL1PSK()) : i + 1;
        if (e.hasMcEventWeight()) {
            rc.startField(ConsolidatedSchema.MC_EVENT_WEIGHT, i);
            rc.addFloat(e.getMcEventWeight());
            rc.endField(ConsolidatedSchema.MC_EVENT_WEIGHT, i);
        }
        i++;
        i = e.hasMcChannelNumber() ? int32(i, ConsolidatedSchema.MC_CHANNEL_NUMBER, e.getMcChannelNumber()) : i + 1;
        tokens(i++, e);
        i = string(i, ConsolidatedSchema.GUID, row.guid);
        i = string(i, ConsolidatedSchema.DB_RAW, refs.dbRaw);
        i = bytes(i, ConsolidatedSchema.TK_RAW, refs.tkRaw);
        i = string(i, ConsolidatedSchema.DB_ESD, refs.dbEsd);
        i = bytes(i, ConsolidatedSchema.TK_ESD, refs.tkEsd);
        i = string(i, ConsolidatedSchema.DB_AOD, refs.dbAod);
        i = bytes(i, ConsolidatedSchema.TK_AOD, refs.tkAod);
        i = string(i, ConsolidatedSchema.DB, refs.db);
        bytes(i, ConsolidatedSchema.TK, refs.tk);
        rc.endMessage();
    }

    private void tokens(int index, EIEvent_p1 e) {
        // The list is always present (possibly empty), so "no tokens" reads back as an empty list.
        rc.startField(ConsolidatedSchema.EITOKEN, index);
        rc.startGroup();
        if (e.getEitokenCount() > 0) {
            rc.startField(ConsolidatedSchema.LIST, 0);
            for (EItoken_p1 t : e.getEitokenList()) {
                rc.startGroup();
                rc.startField(ConsolidatedSchema.ELEMENT, 0);
                rc.startGroup();
                bytes(0, ConsolidatedSchema.NAME, t.getNameBytes());
                bytes(1, ConsolidatedSchema.TOKEN, t.getTokenBytes());
                rc.endGroup();
                rc.endField(ConsolidatedSchema.ELEMENT, 0);
                rc.endGroup();
            }
            rc.endField(ConsolidatedSchema.LIST, 0);
        }
        rc.endGroup();
        rc.endField(ConsolidatedSchema.EITOKEN, index);
    }

    private int int32(int index, String name, int value) {
        rc.startField(name, index);
        rc.addInteger(value);
        rc.endField(name, index);
        return index + 1;
    }

    private int bool(int index, String name, boolean value) {
        rc.startField(name, index);
        rc.addBoolean(value);
        rc.endField(name, index);
        return index + 1;
    }

    /**
     * The value is copied into a scratch array reused for every row and handed over as a reused Binary: Parquet
     * encodes it at once and copies what it keeps (dictionary entries, statistics), so no array per value is
     * allocated.
     */
    private int bytes(int index, String name, com.google.protobuf.ByteString value) {
        if (value != null) {
            int n = value.size();
            if (scratch.length < n) {
                scratch = new byte[Math.max(n, 2 * scratch.length)];
            }
            value.copyTo(scratch, 0);
            rc.startField(name, index);
            rc.addBinary(Binary.fromReusedByteArray(scratch, 0, n));
            rc.endField(name, index);
        }
        return index + 1;
    }

    /** GUID columns: a few distinct values per file, so their encoded Binary is cached (bounded). */
    private int string(int index, String name, String value) {
        if (value != null) {
            Binary b = strings.get(value);
            if (b == null) {
                b = Binary.fromConstantByteArray(value.getBytes(StandardCharsets.UTF_8));
                if (strings.size() >= STRING_CACHE_MAX) {
                    strings.clear();
                }
                strings.put(value, b);
            }
            rc.startField(name, index);
            rc.addBinary(b);
            rc.endField(name, index);
        }
        return index + 1;
    }
}
