package org.eventindex.names;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolTokenTest {
    private static final String DB = "5F2B1D3C-0A9E-E711-8C4A-02163E01A2B3";
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";
    private static final String TOKEN = "[DB=" + DB + "][CNT=POOLContainer(DataHeader)][CLID=" + CLID
            + "][TECH=00000202][OID=0000000000000005-00000000000003E8]";

    @Test
    void parsesAndFormats() {
        PoolToken t = PoolToken.parse(TOKEN);
        assertEquals(DB, t.db());
        assertEquals("POOLContainer(DataHeader)", t.container());
        assertEquals(CLID, t.clid());
        assertEquals(0x202, t.technology());
        assertEquals(5, t.oid1());
        assertEquals(1000, t.oid2());
        assertEquals(TOKEN, t.format());
        assertEquals(TOKEN, t.toString());
    }

    @Test
    void emptyContainerAndFullWidthValues() {
        PoolToken t = new PoolToken(DB, "", CLID, 0xFFFFFFFF, -1L, Long.MIN_VALUE);
        String text = t.format();
        assertEquals("[DB=" + DB + "][CNT=][CLID=" + CLID
                + "][TECH=FFFFFFFF][OID=FFFFFFFFFFFFFFFF-8000000000000000]", text);
        assertEquals(t, PoolToken.parse(text));
    }

    @Test
    void guidCheck() {
        assertTrue(PoolToken.isGuid(DB));
        assertFalse(PoolToken.isGuid(DB.toLowerCase()));
        assertFalse(PoolToken.isGuid(DB.replace('-', '_')));
        assertFalse(PoolToken.isGuid(DB + "0"));
        assertFalse(PoolToken.isGuid(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "garbage",
        "[DB=" + DB + "]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]x",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8",
        "[DB=5f2b1d3c-0a9e-e711-8c4a-02163e01a2b3][CNT=x][CLID=" + CLID
            + "][TECH=00000202][OID=0000000000000005-00000000000003E8]",
        "[DB=" + DB + "][CNT=x][CLID=NOT-A-GUID][TECH=00000202][OID=0000000000000005-00000000000003E8]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=202][OID=0000000000000005-00000000000003E8]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=0000020g][OID=0000000000000005-00000000000003E8]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=00000202][OID=5-3E8]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005_00000000000003E8]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=00000202][OID=000000000000000500000000000003E8]",
        "[DB=" + DB + "][CNT=a[b][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]",
        "[DB=" + DB + "][CNT=a\nb][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]",
        "[CNT=x][DB=" + DB + "][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]",
    })
    void rejectsMalformedTokens(String token) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PoolToken.parse(token));
        assertTrue(e.getMessage().contains("POOL token"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void errorsNameThePart() {
        String badTech = TOKEN.replace("TECH=00000202", "TECH=xyz");
        assertTrue(message(badTech).contains("TECH 'xyz'"));
        String badDb = TOKEN.replace(DB, "1234");
        assertTrue(message(badDb).contains("DB '1234'"));
        assertTrue(message("[DB=" + DB + "][OID=1]").contains("'[CNT='"));
        assertThrows(IllegalArgumentException.class, () -> PoolToken.parse(null));
    }

    @Test
    void constructorValidates() {
        assertThrows(IllegalArgumentException.class, () -> new PoolToken("x", "", CLID, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new PoolToken(DB, "a]b", CLID, 0, 0, 0));
        assertThrows(NullPointerException.class, () -> new PoolToken(DB, null, CLID, 0, 0, 0));
    }

    /** Found by PoolTokenFuzzTest: C1 control characters (U+0080..U+009F) passed the container check. */
    @Test
    void containerRefusesEveryControlCharacter() {
        for (char c : new char[] {0x00, 0x1f, 0x7f, 0x80, 0x86, 0x9f}) {
            assertThrows(IllegalArgumentException.class, () -> new PoolToken(DB, "a" + c, CLID, 0, 0, 0),
                    () -> "U+" + Integer.toHexString(c));
            assertTrue(message("[DB=" + DB + "][CNT=a" + c + "][CLID=" + CLID
                    + "][TECH=00000202][OID=0000000000000005-00000000000003E8]").contains("CNT"));
        }
        // Other non-ASCII text stays allowed.
        assertEquals("caf\u00e9", new PoolToken(DB, "caf\u00e9", CLID, 0, 0, 0).container());
    }

    /** The older form {@code [OID=%08X-%08X]} that older data carries: read, and formatted back as it was read. */
    @Test
    void everyByteInEveryHexDigitOfTechAndOidIsCheckedAsOne() {
        // the digits are checked eight at a time: each byte value at each position, by the grammar and the checker
        byte[] valid = TOKEN.getBytes(StandardCharsets.US_ASCII);
        int tech = TOKEN.indexOf("[TECH=") + 6;
        int oid = TOKEN.indexOf("[OID=") + 5;
        PoolToken.Checker checker = new PoolToken.Checker(1);
        assertNull(checker.problem(0, valid, 0, valid.length));
        for (int at = tech; at < valid.length - 1; at++) {
            if (at >= tech + 8 && at < oid) {
                continue;
            }
            for (int c = 0; c < 256; c++) {
                byte[] b = valid.clone();
                b[at] = (byte) c;
                boolean expected = at == oid + 16 ? c == '-' : (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
                String what = "byte 0x" + Integer.toHexString(c) + " at " + at;
                assertEquals(expected, PoolToken.problem(b, 0, b.length) == null, what);
                assertEquals(expected, checker.problem(0, b, 0, b.length) == null, what + " (checker)");
            }
        }
    }

    @Test
    void theOlderEightDigitOidFormIsReadAndFormattedBackAsItWas() {
        String old = "[DB=" + DB + "][CNT=POOLContainer(DataHeader)][CLID=" + CLID + "][TECH=00000202]"
                + "[OID=00000005-000003E8]";
        PoolToken t = PoolToken.parse(old);
        assertEquals(5, t.oid1());
        assertEquals(1000, t.oid2());
        assertEquals(PoolToken.OLD_OID_DIGITS, t.oidDigits());
        assertEquals(old, t.format());
        assertEquals(t, PoolToken.parse(t.format()));
        assertNull(problem(old));
        // the two forms are not mixed, and the older one holds 32-bit halves only
        assertTrue(message(old.replace("00000005-", "0000000000000005-")).contains("OID"));
        assertThrows(IllegalArgumentException.class,
                () -> new PoolToken(DB, "", CLID, 0, 1L << 32, 0, PoolToken.OLD_OID_DIGITS));
        assertThrows(IllegalArgumentException.class, () -> new PoolToken(DB, "", CLID, 0, 0, 0, 12));
    }

    /** The byte grammar the SPB reader checks every token with is the one parse uses: same verdicts. */
    @ParameterizedTest
    @ValueSource(strings = {
        TOKEN,
        "[DB=" + DB + "][CNT=][CLID=" + CLID + "][TECH=00000000][OID=00000000-00000000]",
        "[DB=" + DB + "][CNT=caf\u00e9][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]",
        "[DB=" + DB + "][CNT=a\u0085][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]]",
        "[DB=" + DB + "][CNT=x][CLID=" + CLID + "][TECH=00000202][OID=00000005-3E8]",
        "[DB=" + DB + "]",
        "x",
    })
    void theByteGrammarAgreesWithParse(String token) {
        String problem = problem(token);
        boolean parses;
        try {
            PoolToken.parse(token);
            parses = true;
        } catch (IllegalArgumentException e) {
            parses = false;
            assertTrue(e.getMessage().endsWith(problem), e.getMessage() + " / " + problem);
        }
        assertEquals(parses, problem == null, token);
    }

    /** Bytes that are not UTF-8 (which a Java string cannot hold) are refused by the byte grammar, naming CNT. */
    @Test
    void aContainerThatIsNotUtf8IsRefused() {
        byte[] head = ("[DB=" + DB + "][CNT=a").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = ("][CLID=" + CLID + "][TECH=00000202][OID=0000000000000005-00000000000003E8]")
                .getBytes(StandardCharsets.US_ASCII);
        for (byte[] bad : new byte[][]{{(byte) 0xff}, {(byte) 0xc3}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
                {(byte) 0xc0, (byte) 0xaf}}) {
            byte[] token = new byte[head.length + bad.length + tail.length];
            System.arraycopy(head, 0, token, 0, head.length);
            System.arraycopy(bad, 0, token, head.length, bad.length);
            System.arraycopy(tail, 0, token, head.length + bad.length, tail.length);
            String problem = PoolToken.problem(token, 0, token.length);
            assertNotNull(problem);
            assertTrue(problem.startsWith("CNT ") && problem.contains("forbidden character at byte 1"), problem);
        }
    }

    /** The checker's short cut gives the whole grammar's verdict and reason, token after token. */
    @Test
    void theCheckerAgreesWithTheGrammarOnEveryToken() {
        java.util.Random r = new java.util.Random(5);
        PoolToken.Checker checker = new PoolToken.Checker(2);
        String base = "[DB=" + DB + "][CNT=POOLContainer(DataHeader)][CLID=" + CLID + "][TECH=00000202][OID=";
        String[] oids = {"0000000000000005-00000000000003E8", "00000005-000003E8", "0000000000000005-00000000000003e8",
            "0000000000000005_00000000000003E8", "5-3E8", "0000000000000005-00000000000003E8]x", ""};
        for (int i = 0; i < 2000; i++) {
            String token = r.nextInt(10) == 0 ? base.replace("DataHeader", "x" + r.nextInt(3)) : base;
            token += oids[r.nextInt(oids.length)] + (r.nextInt(20) == 0 ? "" : "]");
            byte[] b = ("xx" + token).getBytes(StandardCharsets.UTF_8);
            assertEquals(PoolToken.problem(b, 2, b.length - 2), checker.problem(i % 3, b, 2, b.length - 2), token);
        }
    }

    /**
     * Found by the differential test: a container with a supplementary character (U+1F600, a surrogate pair in Java,
     * 4 bytes in UTF-8) passed the byte grammar but not parse, so the consumer failed on a token the producer took.
     */
    @Test
    void aSupplementaryCharacterInTheContainerIsAcceptedByBothTheGrammarAndParse() {
        String token = "[DB=" + DB + "][CNT=Tree\uD83D\uDE00(DataHeader)][CLID=" + CLID
                + "][TECH=00000202][OID=00000000000000AC-0000000000006C1A]";
        assertNull(problem(token));
        assertEquals("Tree\uD83D\uDE00(DataHeader)", PoolToken.parse(token).container());
        assertEquals(token, PoolToken.parse(token).format());
        // an unpaired surrogate, which no UTF-8 holds, stays refused by the constructor
        assertThrows(IllegalArgumentException.class, () -> new PoolToken(DB, "a\uD83D", CLID, 0, 0, 0));
    }

    private static String problem(String token) {
        byte[] b = token.getBytes(StandardCharsets.UTF_8);
        return PoolToken.problem(b, 0, b.length);
    }

    private static String message(String token) {
        return assertThrows(IllegalArgumentException.class, () -> PoolToken.parse(token)).getMessage();
    }
}
