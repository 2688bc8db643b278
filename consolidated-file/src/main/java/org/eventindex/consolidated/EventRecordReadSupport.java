package org.eventindex.consolidated;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads rows of {@link ConsolidatedSchema#SCHEMA} straight into one reused {@link EventRecord}: no intermediate
 * {@code Group} objects, no String decoding of masks and tokens. Only the event columns and the file GUID are read;
 * the per-stage reference columns (derived from the tokens when the file was written) are not.
 */
final class EventRecordReadSupport extends ReadSupport<EventRecord> {
    /** Columns after {@link ConsolidatedSchema#GUID} are derived ones the loader does not read. */
    static final MessageType PROJECTION = projection();

    private static MessageType projection() {
        List<Type> fields = new ArrayList<>();
        for (Type t : ConsolidatedSchema.SCHEMA.getFields()) {
            fields.add(t);
            if (t.getName().equals(ConsolidatedSchema.GUID)) {
                break;
            }
        }
        return new MessageType(ConsolidatedSchema.SCHEMA.getName(), fields);
    }

    @Override
    public ReadContext init(InitContext context) {
        return new ReadContext(PROJECTION);
    }

    @Override
    public RecordMaterializer<EventRecord> prepareForRead(Configuration conf, Map<String, String> keyValueMetaData,
                                                          MessageType fileSchema, ReadContext readContext) {
        return new Materializer(readContext.getRequestedSchema());
    }

    @Override
    public RecordMaterializer<EventRecord> prepareForRead(ParquetConfiguration conf,
                                                          Map<String, String> keyValueMetaData,
                                                          MessageType fileSchema, ReadContext readContext) {
        return new Materializer(readContext.getRequestedSchema());
    }

    private static final class Materializer extends RecordMaterializer<EventRecord> {
        private final EventRecord r = new EventRecord();
        private final Root root;

        Materializer(MessageType schema) {
            root = new Root(schema, r);
        }

        @Override
        public EventRecord getCurrentRecord() {
            return r;
        }

        @Override
        public GroupConverter getRootConverter() {
            return root;
        }
    }

    private static final class Root extends GroupConverter {
        private final EventRecord r;
        private final Converter[] converters;
        // file GUID -> its String and bytes: a dataset has few files, so every row reuses one of a few of each
        private final Map<Binary, Guid> guids = new HashMap<>();

        Root(MessageType schema, EventRecord r) {
            this.r = r;
            converters = new Converter[schema.getFieldCount()];
            for (int i = 0; i < converters.length; i++) {
                converters[i] = converter(schema.getFieldName(i));
            }
        }

        private Converter converter(String field) {
            return switch (field) {
                case ConsolidatedSchema.RUN_NUMBER -> ints(v -> r.runNumber = v);
                case ConsolidatedSchema.EVENT_NUMBER -> new PrimitiveConverter() {
                    @Override
                    public void addLong(long value) {
                        r.eventNumber = value;
                    }
                };
                case ConsolidatedSchema.LUMI_BLOCK -> ints(v -> r.lumiBlock = v);
                case ConsolidatedSchema.TIME_STAMP -> ints(v -> r.timeStamp = v);
                case ConsolidatedSchema.TIME_STAMP_NS_OFFSET -> ints(v -> r.timeStampNSOffset = v);
                case ConsolidatedSchema.BCID -> ints(v -> r.bcid = v);
                case ConsolidatedSchema.EXTENDED_LEVEL1_ID -> ints(v -> {
                    r.hasExtendedLevel1ID = true;
                    r.extendedLevel1ID = v;
                });
                case ConsolidatedSchema.IS_SIMULATION -> bools(v -> r.isSimulation = v);
                case ConsolidatedSchema.IS_CALIBRATION -> bools(v -> r.isCalibration = v);
                case ConsolidatedSchema.IS_TEST_BEAM -> bools(v -> r.isTestBeam = v);
                case ConsolidatedSchema.L1_PASSED_TRIG_MASK -> bytes(v -> r.l1PassedTrigMask = v);
                case ConsolidatedSchema.L2_PASSED_TRIG_MASK -> bytes(v -> r.l2PassedTrigMask = v);
                case ConsolidatedSchema.EF_PASSED_TRIG_MASK -> bytes(v -> r.efPassedTrigMask = v);
                case ConsolidatedSchema.SMK -> ints(v -> {
                    r.hasSmk = true;
                    r.smk = v;
                });
                case ConsolidatedSchema.HLTPSK -> ints(v -> {
                    r.hasHltpsk = true;
                    r.hltpsk = v;
                });
                case ConsolidatedSchema.L1PSK -> ints(v -> {
                    r.hasL1psk = true;
                    r.l1psk = v;
                });
                case ConsolidatedSchema.MC_EVENT_WEIGHT -> new PrimitiveConverter() {
                    @Override
                    public void addFloat(float value) {
                        r.hasMcEventWeight = true;
                        r.mcEventWeight = value;
                    }
                };
                case ConsolidatedSchema.MC_CHANNEL_NUMBER -> ints(v -> {
                    r.hasMcChannelNumber = true;
                    r.mcChannelNumber = v;
                });
                case ConsolidatedSchema.EITOKEN -> new TokenList(r);
                case ConsolidatedSchema.GUID -> new PrimitiveConverter() {
                    @Override
                    public void addBinary(Binary value) {
                        Guid g = guids.get(value);
                        if (g == null) {
                            g = new Guid(value.toStringUsingUTF8(), value.getBytes());
                            guids.put(value.copy(), g);
                        }
                        r.guid = g.text();
                        r.guidBytes = g.bytes();
                    }
                };
                default -> throw new IllegalArgumentException("unexpected column " + field + " in the projection");
            };
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return converters[fieldIndex];
        }

        @Override
        public void start() {
            r.clear();
        }

        @Override
        public void end() {
        }
    }

    /** {@code eitoken} (LIST) -> {@code list} (repeated) -> {@code element} {name, token}. */
    private static final class TokenList extends Wrapper {
        TokenList(EventRecord r) {
            super(new Wrapper(new GroupConverter() {
                private byte[] name;
                private byte[] token;
                private final Converter names = bytes(v -> name = v);
                private final Converter tokens = bytes(v -> token = v);

                @Override
                public Converter getConverter(int fieldIndex) {
                    return fieldIndex == 0 ? names : tokens;
                }

                @Override
                public void start() {
                    name = null;
                    token = null;
                }

                @Override
                public void end() {
                    r.addToken(name, token);
                }
            }));
        }
    }

    /** A group level that holds one child group and does nothing itself. */
    private static class Wrapper extends GroupConverter {
        private final GroupConverter child;

        Wrapper(GroupConverter child) {
            this.child = child;
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return child;
        }

        @Override
        public void start() {
        }

        @Override
        public void end() {
        }
    }

    private record Guid(String text, byte[] bytes) {
    }

    private interface IntSink {
        void set(int value);
    }

    private interface BoolSink {
        void set(boolean value);
    }

    private interface BytesSink {
        void set(byte[] value);
    }

    private static PrimitiveConverter ints(IntSink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
                sink.set(value);
            }
        };
    }

    private static PrimitiveConverter bools(BoolSink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addBoolean(boolean value) {
                sink.set(value);
            }
        };
    }

    /** A new array per value (see {@link EventRecord}): {@code getBytes()} copies a slice of a page. */
    private static PrimitiveConverter bytes(BytesSink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addBinary(Binary value) {
                sink.set(value.getBytes());
            }
        };
    }
}
