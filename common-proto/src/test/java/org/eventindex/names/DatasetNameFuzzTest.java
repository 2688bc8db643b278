package org.eventindex.names;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz targets for {@link DatasetName}. Contract: {@code parse} returns a name whose {@code toString()} is exactly
 * the input and whose text can safely become an HDFS path or Kudu key, or throws {@link IllegalArgumentException}
 * with a message naming the input; a name built from parts either is refused the same way or survives
 * {@code parse(name.toString())} unchanged.
 */
class DatasetNameFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void parse(byte[] bytes) {
        String input = text(bytes);
        DatasetName name;
        try {
            name = DatasetName.parse(input);
        } catch (IllegalArgumentException e) {
            checkRejection(e);
            return;
        }
        assertEquals(input, name.toString(), "an accepted name prints back as parsed");
        checkSafe(name.toString());
        DatasetName container = DatasetName.parse(name.container());
        assertEquals("", container.suffix(), "the container of " + input + " has no task suffix");
        assertEquals(name.container(), container.toString(), "container of " + input);
    }

    @FuzzTest(maxDuration = "30s")
    void roundTrip(FuzzedDataProvider data) {
        String project = data.consumeBoolean() ? "data" + field(data) : field(data);
        int run = data.consumeBoolean() ? data.consumeInt(0, 999_999_999) : data.consumeInt();
        String suffix = switch (data.consumeInt(0, 3)) {
            case 0 -> "";
            case 1 -> String.format("_tid%08d_%02d", data.consumeInt(0, 99_999_999), data.consumeInt(0, 99));
            case 2 -> String.format("_sub%010d", data.consumeLong(0, 9_999_999_999L));
            default -> data.consumeString(20);
        };
        DatasetName name;
        try {
            name = new DatasetName(project, run, field(data), field(data), field(data), field(data), suffix);
        } catch (IllegalArgumentException e) {
            checkRejection(e);
            return;
        }
        String text = name.toString();
        checkSafe(text);
        assertEquals(name, DatasetName.parse(text), "parse(toString()) of " + text);
    }

    /** Mostly characters of real names, sometimes anything (dots, slashes, controls, non-ASCII). */
    private static String field(FuzzedDataProvider data) {
        if (data.consumeInt(0, 7) == 0) {
            return data.consumeString(12);
        }
        String alphabet = "abcdefxyzAOD_-0123456789";
        int length = data.consumeInt(0, 14);
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append(alphabet.charAt(data.consumeInt(0, alphabet.length() - 1)));
        }
        return b.toString();
    }

    /** The fuzzer's bytes as the text a message body would carry (UTF-8; malformed sequences become U+FFFD). */
    static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    static void checkSafe(String text) {
        assertTrue(text.length() <= DatasetName.MAX_LENGTH, "length of " + text);
        assertFalse(text.contains("..") || text.contains("/") || text.startsWith("."), "path-safe: " + text);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            assertTrue(c > 0x20 && c < 0x7f, "printable ASCII at " + i + " of " + text);
        }
    }

    private static void checkRejection(IllegalArgumentException e) {
        String m = e.getMessage();
        assertTrue(m != null && (m.startsWith("invalid dataset name '") || m.equals("dataset name is missing (null)")),
                "rejection message: " + m);
    }
}
