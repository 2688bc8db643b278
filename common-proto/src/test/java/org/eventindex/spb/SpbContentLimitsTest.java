package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import static org.eventindex.testing.SpbFixtures.RUN;

import com.google.protobuf.UnknownFieldSet;
import org.eventindex.names.DatasetName;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.testing.SpbFixtures.Raw;
import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPOutputStream;

import static org.eventindex.testing.SpbFixtures.GUID_A;
import static org.eventindex.testing.SpbFixtures.TOKEN;
import static org.eventindex.testing.SpbFixtures.hltMask;
import static org.eventindex.testing.SpbFixtures.l1Mask;
import static org.eventindex.testing.SpbFixtures.token;
import static org.eventindex.testing.SpbFixtures.begin;
import static org.eventindex.testing.SpbFixtures.end;
import static org.eventindex.testing.SpbFixtures.event;
import static org.eventindex.testing.SpbFixtures.header;
import static org.eventindex.testing.SpbFixtures.menu;
import static org.eventindex.testing.SpbFixtures.trailer;
import static org.eventindex.spb.SpbMessageType.BEGIN_GUID;
import static org.eventindex.spb.SpbMessageType.END_GUID;
import static org.eventindex.spb.SpbMessageType.EVENT;
import static org.eventindex.spb.SpbMessageType.HEADER;
import static org.eventindex.spb.SpbMessageType.TRAILER;
import static org.eventindex.spb.SpbMessageType.TRIGGER_MENU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SpbContentLimits} as {@link SpbReader} enforces them, in both its modes (the producer parses events, the
 * consumer scans them): every field at its limit is read, one byte more is refused as OVERSIZE naming the field.
 */
class SpbContentLimitsTest {
    private static final String SOURCE = "content.ei.spb";

    /**
     * One field of one message set to {@code n} bytes of valid content; {@code readLimit} is the size limit of
     * {@link SpbContentLimits} (where the content rules allow less, {@code limit} is theirs: past it and up to the
     * size limit the field is refused as BAD_CONTENT, past the size limit as OVERSIZE).
     */
    record Field(String name, int limit, Edit edit, int readLimit) {
        Field(String name, int limit, Edit edit) {
            this(name, limit, edit, limit);
        }


        @Override
        public String toString() {
            return name;
        }
    }

    interface Edit {
        byte[] file(int bytes);
    }

    static List<Field> fields() {
        int name = SpbContentLimits.NAME_BYTES;
        return List.of(
                new Field("HEADER taskID", name, n -> file(h -> h.setTaskID(s(n)), b -> b, m -> m, e -> e)),
                new Field("HEADER jobID", name, n -> file(h -> h.setJobID(s(n)), b -> b, m -> m, e -> e)),
                // a dataset name is at most 255 characters (ContentRules): the name limit only bounds what is read
                new Field("HEADER inputDsName", DatasetName.MAX_LENGTH, n -> file(h -> h.setInputDsName(name(n)),
                        b -> b, m -> m, e -> e), name),
                new Field("BEGIN_GUID guid", name, n -> file(h -> h, b -> b.setGuid(s(n)), m -> m, e -> e)),
                new Field("BEGIN_GUID AMITag", name, n -> file(h -> h, b -> b.setAMITag(s(n)), m -> m, e -> e)),
                new Field("BEGIN_GUID trigStream", name, n -> file(h -> h, b -> b.setTrigStream(s(n)), m -> m,
                        e -> e)),
                new Field("BEGIN_GUID projName", name, n -> file(h -> h, b -> b.setProjName(s(n)), m -> m, e -> e)),
                new Field("TRIGGER_MENU L1Menu", SpbContentLimits.MENU_BYTES, n -> file(h -> h, b -> b,
                        m -> m.setL1Menu(s(n)), e -> e)),
                new Field("TRIGGER_MENU L2Menu", SpbContentLimits.MENU_BYTES, n -> file(h -> h, b -> b,
                        m -> m.setL2Menu(s(n)), e -> e)),
                new Field("TRIGGER_MENU EFMenu", SpbContentLimits.MENU_BYTES, n -> file(h -> h, b -> b,
                        m -> m.setEFMenu(s(n)), e -> e)),
                new Field("TRIGGER_MENU HLTMenu", SpbContentLimits.MENU_BYTES, n -> file(h -> h, b -> b,
                        m -> m.setHLTMenu(s(n)), e -> e)),
                new Field("EVENT L1PassedTrigMask", SpbContentLimits.L1_MASK_BYTES, n -> file(h -> h, b -> b, m -> m,
                        e -> e.setL1PassedTrigMask(l1Mask(n)))),
                new Field("EVENT L2PassedTrigMask", SpbContentLimits.HLT_MASK_BYTES, n -> file(h -> h, b -> b,
                        m -> m, e -> e.setL2PassedTrigMask(s(n)))),
                new Field("EVENT EFPassedTrigMask", SpbContentLimits.HLT_MASK_BYTES, n -> file(h -> h, b -> b,
                        m -> m, e -> e.setEFPassedTrigMask(hltMask(n)))),
                new Field("EVENT eitoken name", name, n -> file(h -> h, b -> b, m -> m,
                        e -> e.addEitoken(EItoken_p1.newBuilder().setName(s(n)).setToken(TOKEN)))),
                new Field("EVENT eitoken token", SpbContentLimits.TOKEN_BYTES, n -> file(h -> h, b -> b, m -> m,
                        e -> e.addEitoken(EItoken_p1.newBuilder().setName("StreamESD").setToken(token(n))))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fields")
    void everyFieldIsReadAtItsLimitAndRefusedOneByteOver(Field field) throws IOException {
        for (boolean raw : new boolean[] {false, true}) {
            assertEquals(2, drain(field.edit().file(field.limit()), raw), field + " at its limit");
            if (field.readLimit() > field.limit()) {
                SpbFormatException e = assertThrows(SpbFormatException.class,
                        () -> drain(field.edit().file(field.readLimit()), raw));
                assertEquals(Problem.BAD_CONTENT, e.problem(), e.getMessage());
            }
            SpbFormatException e = assertThrows(SpbFormatException.class,
                    () -> drain(field.edit().file(field.readLimit() + 1), raw));
            assertEquals(Problem.OVERSIZE, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains(field.name() + " ") && e.getMessage().contains(" is "
                    + (field.readLimit() + 1) + " bytes, more than the limit of " + field.readLimit()),
                    e.getMessage());
            assertTrue(e.getMessage().startsWith(SOURCE), e.getMessage());
        }
    }

    @ParameterizedTest(name = "raw events: {0}")
    @ValueSource(booleans = {false, true})
    void tokensPerEventAreBounded(boolean raw) throws IOException {
        assertEquals(2, drain(file(h -> h, b -> b, m -> m, e -> tokens(e, SpbContentLimits.TOKENS_PER_EVENT - 1)),
                raw));
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(file(h -> h, b -> b, m -> m,
                ev -> tokens(ev, SpbContentLimits.TOKENS_PER_EVENT)), raw));
        assertTrue(e.getMessage().contains("has " + (SpbContentLimits.TOKENS_PER_EVENT + 1)
                + " eitoken entries, more than the limit of " + SpbContentLimits.TOKENS_PER_EVENT), e.getMessage());
    }

    /**
     * The object of issue 19: 70 TriggerMenus of a 15 MiB L1Menu of one repeated character (each under the 16 MiB
     * message limit), gzip -9 about 1 MB. Refused at the first menu, having inflated little more than that menu.
     */
    @Test
    void theMenuBombOfIssue19IsRefusedAtItsFirstMenu() throws IOException {
        TriggerMenu_p1 huge = menu().toBuilder().setL1Menu("L".repeat(15 << 20)).build();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16) {
            {
                def.setLevel(9);
            }
        }) {
            gz.write(Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A)).plain());
            byte[] one = new Raw().message(TRIGGER_MENU, huge).plain();
            for (int i = 0; i < 70; i++) {
                gz.write(one);
            }
            Raw rest = new Raw();
            for (int i = 0; i < 20; i++) {
                rest.message(EVENT, event(RUN, i + 1));
            }
            gz.write(rest.message(END_GUID, end(20)).message(TRAILER, trailer(20, 1)).plain());
        }
        byte[] bomb = out.toByteArray();
        assertTrue(bomb.length < 2 << 20, "the bomb is " + bomb.length + " bytes");
        for (boolean raw : new boolean[] {false, true}) {
            SpbReader reader = new SpbReader(new ByteArrayInputStream(bomb), SOURCE, SpbLimits.DEFAULT);
            SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(reader, raw));
            assertEquals(Problem.OVERSIZE, e.problem());
            // the inflation ratio stops it first; without it, the menu's size would
            assertTrue(e.getMessage().contains("inflates more than " + SpbLimits.DEFAULT_INFLATION_RATIO + " times"),
                    e.getMessage());
            assertTrue(reader.uncompressedBytes() < 2L * huge.getSerializedSize(),
                    "inflated " + reader.uncompressedBytes());
            SpbReader noRatio = new SpbReader(new ByteArrayInputStream(bomb), SOURCE, new SpbLimits(
                    SpbLimits.DEFAULT.maxMessageBytes(), SpbLimits.DEFAULT.maxInflatedBytes(),
                    SpbLimits.DEFAULT.maxEventsPerFile(), Integer.MAX_VALUE));
            e = assertThrows(SpbFormatException.class, () -> drain(noRatio, raw));
            assertTrue(e.getMessage().contains("TRIGGER_MENU L1Menu (GUID " + GUID_A + ") is " + (15 << 20)
                    + " bytes, more than the limit of " + SpbContentLimits.MENU_BYTES), e.getMessage());
            assertTrue(noRatio.uncompressedBytes() < 2L * huge.getSerializedSize(),
                    "inflated " + noRatio.uncompressedBytes());
        }
    }

    @Test
    void menusPerFileAreBoundedEvenWhenTheyRepeat() throws IOException {
        assertEquals(2, drain(menus(SpbContentLimits.MENUS_PER_FILE, i -> menu()), true));
        SpbFormatException e = assertThrows(SpbFormatException.class,
                () -> drain(menus(SpbContentLimits.MENUS_PER_FILE + 1, i -> menu()), true));
        assertTrue(e.getMessage().contains("GUID " + GUID_A + " has more than " + SpbContentLimits.MENUS_PER_FILE
                + " TRIGGER_MENU messages"), e.getMessage());
    }

    @Test
    void distinctMenuBytesAreBoundedAndRepeatsCountOnce() throws IOException {
        String big = s(SpbContentLimits.MENU_BYTES - 64);
        // 64 copies of one 1 MiB menu: 64 MiB of menus, one distinct
        assertEquals(2, drain(menus(SpbContentLimits.MENUS_PER_FILE, i -> menu().toBuilder().setL1Menu(big)
                .build()), true));
        int distinct = SpbContentLimits.DISTINCT_MENU_BYTES / SpbContentLimits.MENU_BYTES + 1;
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(menus(distinct,
                i -> menu().toBuilder().setSMK(i).setL1Menu(big).build()), true));
        assertEquals(Problem.OVERSIZE, e.problem());
        assertTrue(e.getMessage().contains("distinct TRIGGER_MENU messages of more than "
                + SpbContentLimits.DISTINCT_MENU_BYTES + " bytes in all (" + distinct + " menus"), e.getMessage());
    }

    @Test
    void inputFilesPerStreamAreBounded() throws IOException {
        assertEquals(0, drain(emptyFiles(SpbContentLimits.FILES), true));
        SpbFormatException e = assertThrows(SpbFormatException.class,
                () -> drain(emptyFiles(SpbContentLimits.FILES + 1), true));
        assertTrue(e.getMessage().contains("more than " + SpbContentLimits.FILES + " input files"), e.getMessage());
    }

    @Test
    void unknownFieldsOfEveryMessageAreDropped() throws IOException {
        UnknownFieldSet unknown = UnknownFieldSet.newBuilder().addField(99, UnknownFieldSet.Field.newBuilder()
                .addLengthDelimited(com.google.protobuf.ByteString.copyFromUtf8("x".repeat(1000))).build()).build();
        byte[] gz = Raw.start().message(HEADER, header().toBuilder().setUnknownFields(unknown).build())
                .message(BEGIN_GUID, begin(GUID_A).toBuilder().setUnknownFields(unknown).build())
                .message(TRIGGER_MENU, menu().toBuilder().setUnknownFields(unknown).build())
                .message(EVENT, event(RUN, 1).toBuilder().setUnknownFields(unknown).build())
                .message(END_GUID, end(1).toBuilder().setUnknownFields(unknown).build())
                .message(TRAILER, trailer(1, 1).toBuilder().setUnknownFields(unknown).build()).gzip();
        try (SpbReader r = new SpbReader(new ByteArrayInputStream(gz), SOURCE, SpbLimits.DEFAULT)) {
            int records = 0;
            for (SpbRecord rec = r.next(); rec != null; rec = r.next()) {
                records++;
                com.google.protobuf.Message m;
                if (rec instanceof SpbRecord.Header h) {
                    m = h.message();
                } else if (rec instanceof SpbRecord.BeginGuid b) {
                    m = b.message();
                } else if (rec instanceof SpbRecord.TriggerMenu t) {
                    m = t.message();
                } else if (rec instanceof SpbRecord.Event ev) {
                    m = ev.message();
                } else if (rec instanceof SpbRecord.EndGuid en) {
                    m = en.message();
                } else {
                    m = ((SpbRecord.Trailer) rec).message();
                }
                assertFalse(m.getUnknownFields().hasField(99), rec.toString());
            }
            assertEquals(6, records);
        }
    }

    private static EIEvent_p1.Builder tokens(EIEvent_p1.Builder e, int more) {
        for (int i = 0; i < more; i++) {
            e.addEitoken(EItoken_p1.newBuilder().setName("Stream" + i).setToken(TOKEN));
        }
        return e;
    }

    /** Header, one GUID with a menu, two events, end: each message edited first. */
    private static byte[] file(UnaryOperator<Header_p1.Builder> h, UnaryOperator<BeginGUID_p1.Builder> b,
                               UnaryOperator<TriggerMenu_p1.Builder> m, UnaryOperator<EIEvent_p1.Builder> e) {
        return Raw.start().message(HEADER, h.apply(header().toBuilder()).build())
                .message(BEGIN_GUID, b.apply(begin(GUID_A).toBuilder()).build())
                .message(TRIGGER_MENU, m.apply(menu().toBuilder()).build())
                .message(EVENT, e.apply(event(RUN, 1).toBuilder()).build())
                .message(EVENT, event(RUN, 2))
                .message(END_GUID, end(2)).message(TRAILER, trailer(2, 1)).gzip();
    }

    private static byte[] menus(int n, java.util.function.IntFunction<TriggerMenu_p1> menu) {
        Raw r = Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A));
        for (int i = 0; i < n; i++) {
            r.message(TRIGGER_MENU, menu.apply(i));
        }
        return r.message(EVENT, event(RUN, 1)).message(EVENT, event(RUN, 2)).message(END_GUID, end(2))
                .message(TRAILER, trailer(2, 1)).gzip();
    }

    private static byte[] emptyFiles(int n) {
        Raw r = Raw.start().message(HEADER, header());
        for (int i = 0; i < n; i++) {
            r.message(BEGIN_GUID, begin("GUID-" + i)).message(END_GUID, end(0));
        }
        return r.message(TRAILER, trailer(0, n)).gzip();
    }

    /** A dataset name of {@code n} characters (at least 55) of the header's project and run. */
    private static String name(int n) {
        String base = header().getInputDsName();
        return base.substring(0, base.lastIndexOf('.') + 1) + "f" + "1".repeat(n - base.lastIndexOf('.') - 2);
    }

    /** {@code bytes} random letters: real strings do not compress a thousand times. */
    private static String s(int bytes) {
        java.util.Random r = new java.util.Random(bytes);
        char[] c = new char[bytes];
        for (int i = 0; i < bytes; i++) {
            c[i] = (char) ('a' + r.nextInt(26));
        }
        return new String(c);
    }

    private static long drain(byte[] gz, boolean raw) throws IOException {
        return drain(new SpbReader(new ByteArrayInputStream(gz), SOURCE, SpbLimits.DEFAULT), raw);
    }

    private static long drain(SpbReader reader, boolean raw) throws IOException {
        long events = 0;
        try (reader) {
            if (raw) {
                reader.rawEvents();
            }
            for (SpbRecord r = reader.next(); r != null; r = reader.next()) {
                if (r instanceof SpbRecord.Event || r instanceof SpbRecord.RawEvent) {
                    events++;
                }
            }
        }
        return events;
    }
}
