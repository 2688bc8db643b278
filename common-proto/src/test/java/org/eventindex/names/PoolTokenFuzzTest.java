package org.eventindex.names;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz targets for {@link PoolToken}. Contract: {@code parse} accepts only the canonical form, so an accepted token
 * formats back to exactly its input; anything else throws {@link IllegalArgumentException} naming the token; a
 * token built from parts is refused the same way or survives {@code parse(format())}. An accepted container never
 * holds a bracket or a control character.
 */
class PoolTokenFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void parse(byte[] bytes) {
        String input = DatasetNameFuzzTest.text(bytes);
        PoolToken token;
        try {
            token = PoolToken.parse(input);
        } catch (IllegalArgumentException e) {
            checkRejection(e, "invalid POOL token '", "POOL token is missing (null)");
            return;
        }
        assertEquals(input, token.format(), "an accepted token formats back as parsed");
        checkContainer(token.container());
    }

    @FuzzTest(maxDuration = "30s")
    void roundTrip(FuzzedDataProvider data) {
        String db = guid(data);
        String clid = guid(data);
        String container = data.consumeBoolean() ? "POOLContainer(DataHeader)" : data.consumeString(30);
        PoolToken token;
        try {
            token = new PoolToken(db, container, clid, data.consumeInt(), data.consumeLong(), data.consumeLong());
        } catch (IllegalArgumentException e) {
            checkRejection(e, "POOL token ", null);
            return;
        }
        checkContainer(token.container());
        assertEquals(token, PoolToken.parse(token.format()), "parse(format()) of " + token.format());
    }

    /** A well-formed GUID most of the time, sometimes arbitrary text. */
    private static String guid(FuzzedDataProvider data) {
        if (data.consumeInt(0, 5) == 0) {
            return data.consumeString(40);
        }
        String hex = String.format("%016X%016X", data.consumeLong(), data.consumeLong());
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20, 32);
    }

    private static void checkContainer(String container) {
        for (int i = 0; i < container.length(); i++) {
            char c = container.charAt(i);
            assertFalse(c == '[' || c == ']' || Character.isISOControl(c),
                    "container has a bracket or control character at " + i + ": " + Printable.of(container, 100));
        }
    }

    private static void checkRejection(IllegalArgumentException e, String prefix, String exact) {
        String m = e.getMessage();
        assertTrue(m != null && (m.startsWith(prefix) || m.equals(exact)), "rejection message: " + m);
    }
}
