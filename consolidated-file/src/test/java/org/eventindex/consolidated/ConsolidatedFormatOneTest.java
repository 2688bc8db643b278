package org.eventindex.consolidated;

import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files of format 1 (written before 2026-11-23: the same columns plus a {@code tk_*} copy of each stage's token) are
 * still read, row for row, by the loader's reader; a file claiming any other format is refused, naming it.
 */
class ConsolidatedFormatOneTest {
    private static final int EVENTS = 700;
    private static final String[] STAGES = {"raw", "esd", "aod", ""};

    @Test
    void aFormatOneFileReadsLikeTheSameRowsInFormatTwo(@TempDir Path dir) throws IOException {
        List<EIEvent_p1> events = new ArrayList<>();
        Random random = new Random(5);
        for (int i = 0; i < EVENTS; i++) {
            events.add(ConsolidatedFileWriterTest.event(i, random));
        }
        Path two = dir.resolve("two.parquet");
        write(two, events, ConsolidatedSchema.FORMAT_VERSION);
        Path one = dir.resolve("one.parquet");
        rewriteAsFormatOne(two, one);

        try (ParquetFileReader footer = ParquetFileReader.open(new LocalInputFile(one))) {
            MessageType schema = footer.getFileMetaData().getSchema();
            for (String stage : STAGES) {
                assertTrue(schema.containsField(stage.isEmpty() ? "tk" : "tk_" + stage), schema.toString());
            }
            assertEquals(ConsolidatedSchema.FORMAT_VERSION_1,
                    footer.getFileMetaData().getKeyValueMetaData().get(ConsolidatedSchema.META_FORMAT));
        }
        try (ConsolidatedFileReader reader = new ConsolidatedFileReader(new LocalInputFile(one), one.toString())) {
            assertEquals(EVENTS, reader.metadata().events());
            for (int i = 0; i < EVENTS; i++) {
                ConsolidatedFileReader.Row r = reader.next();
                assertEquals(events.get(i), r.event(), "row " + i);
                assertEquals(ConsolidatedFileWriterTest.guid(i % 7), r.guid(), "row " + i);
            }
            assertNull(reader.next()); // count and checksum checked here
        }
    }

    @Test
    void anUnknownFormatIsRefusedNamingTheFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("nine.parquet");
        write(file, List.of(ConsolidatedFileWriterTest.event(0, new Random(1))), "eventindex-consolidated-9");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ConsolidatedFileReader(new LocalInputFile(file), file.toString()));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("eventindex-consolidated-9")
                && e.getMessage().contains(ConsolidatedSchema.FORMAT_VERSION_1), e.getMessage());
    }

    private static void write(Path file, List<EIEvent_p1> events, String format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ConsolidatedFileWriter w = new ConsolidatedFileWriter(out, false, 1 << 16);
        for (int i = 0; i < events.size(); i++) {
            w.write(events.get(i), ConsolidatedFileWriterTest.guid(i % 7));
        }
        Map<String, String> meta = new HashMap<>(EventRecordTest.metadata(events.size(), w.finishDigest())
                .toKeyValues());
        meta.put(ConsolidatedSchema.META_FORMAT, format);
        w.finish(meta);
        Files.write(file, out.toByteArray());
    }

    /** Copies every row with parquet-mr's example classes into format 1's schema, adding the token copies. */
    private static void rewriteAsFormatOne(Path two, Path one) throws IOException {
        MessageType schema = formatOneSchema();
        Map<String, String> meta;
        try (ParquetFileReader footer = ParquetFileReader.open(new LocalInputFile(two))) {
            meta = new HashMap<>(footer.getFileMetaData().getKeyValueMetaData());
            meta.keySet().removeIf(k -> !k.startsWith("eventindex."));
        }
        meta.put(ConsolidatedSchema.META_FORMAT, ConsolidatedSchema.FORMAT_VERSION_1);
        try (ParquetReader<Group> in = new ParquetReader.Builder<Group>(new LocalInputFile(two),
                new PlainParquetConfiguration()) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return new GroupReadSupport();
            }
        }.build();
             ParquetWriter<Group> out = ExampleParquetWriter.builder(new LocalOutputFile(one)).withType(schema)
                     .withExtraMetaData(meta).build()) {
            for (Group row = in.read(); row != null; row = in.read()) {
                Group copy = new SimpleGroup(schema);
                copyFields(row, copy);
                addTokenCopies(row, copy);
                out.write(copy);
            }
        }
    }

    /** Format 2's schema with {@code tk_<stage>} after each {@code db_<stage>} (and {@code tk} after {@code db}). */
    private static MessageType formatOneSchema() {
        Types.MessageTypeBuilder b = Types.buildMessage();
        for (Type t : ConsolidatedSchema.SCHEMA.getFields()) {
            b.addField(t);
            if (t.getName().startsWith("db")) {
                b.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType())
                        .named("tk" + t.getName().substring(2));
            }
        }
        return b.named(ConsolidatedSchema.SCHEMA.getName());
    }

    private static void copyFields(Group from, Group to) {
        GroupType type = from.getType();
        for (int f = 0; f < type.getFieldCount(); f++) {
            Type field = type.getType(f);
            for (int i = 0; i < from.getFieldRepetitionCount(f); i++) {
                if (!field.isPrimitive()) {
                    copyFields(from.getGroup(f, i), to.addGroup(field.getName()));
                    continue;
                }
                switch (field.asPrimitiveType().getPrimitiveTypeName()) {
                    case INT32 -> to.add(field.getName(), from.getInteger(f, i));
                    case INT64 -> to.add(field.getName(), from.getLong(f, i));
                    case BOOLEAN -> to.add(field.getName(), from.getBoolean(f, i));
                    case FLOAT -> to.add(field.getName(), from.getFloat(f, i));
                    case BINARY -> to.add(field.getName(), from.getBinary(f, i));
                    default -> throw new IllegalStateException("unexpected column " + field);
                }
            }
        }
    }

    /** What format 1 stored: the own file's token (the first) and the first token named after each stage. */
    private static void addTokenCopies(Group row, Group copy) {
        Map<String, String> byName = new HashMap<>();
        String own = null;
        if (row.getFieldRepetitionCount(ConsolidatedSchema.EITOKEN) > 0) {
            Group list = row.getGroup(ConsolidatedSchema.EITOKEN, 0);
            for (int i = 0; i < list.getFieldRepetitionCount(ConsolidatedSchema.LIST); i++) {
                Group element = list.getGroup(ConsolidatedSchema.LIST, i).getGroup(ConsolidatedSchema.ELEMENT, 0);
                String token = element.getString(ConsolidatedSchema.TOKEN, 0);
                own = own == null ? token : own;
                byName.putIfAbsent(element.getString(ConsolidatedSchema.NAME, 0), token);
            }
        }
        for (String stage : STAGES) {
            String token = stage.isEmpty() ? own : byName.get("Stream" + stage.toUpperCase());
            if (token != null) {
                copy.add(stage.isEmpty() ? "tk" : "tk_" + stage, token);
            }
        }
    }
}
