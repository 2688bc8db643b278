package org.eventindex.message;

import org.eventindex.ProjectVersion;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FormatVersionTest {
    private static int of(String json) throws IOException {
        return FormatVersion.of(Json.tree(json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aDocumentWithoutAVersionIsVersion1() throws IOException {
        assertEquals(1, of("{\"type\":\"report\"}"));
        assertEquals(1, of("{\"v\":null}"));
        assertEquals(1, FormatVersion.of(null));
        assertEquals(3, of("{\"v\":3}"));
    }

    @Test
    void aVersionThatIsNotAPositiveIntegerIsNamed() {
        for (String bad : List.of("\"2\"", "1.5", "0", "-1", "4294967296", "{}")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> of("{\"v\":" + bad + "}"));
            assertTrue(e.getMessage().startsWith("field 'v' (format version) is " + bad), e.getMessage());
        }
    }

    @Test
    void newerSaysWhatWhichVersionsAndWhatToDo() {
        assertEquals(Optional.empty(), FormatVersion.newer("report r", 1, 1, "supervisor"));
        assertEquals(Optional.empty(), FormatVersion.newer("report r", 1, 2, "supervisor"));
        assertEquals(Optional.of("report r has format version 3; this supervisor (eventindex " + ProjectVersion.get()
                + ") reads format versions up to 2: it was written by a newer release; upgrade this supervisor to the"
                + " writer's release or later (docs/compatibility.md)"), FormatVersion.newer("report r", 3, 2,
                "supervisor"));
    }

    @Test
    void messagesCarryTheirVersionAndReadBackWithOrWithoutIt() throws IOException {
        ConsumerHeartbeat hb = ConsumerHeartbeat.idle("c1", "0.2.0", 30_000, 5);
        byte[] json = Json.write(hb);
        assertEquals(1, Json.tree(json).get("v").asInt());
        assertEquals(hb, Json.read(json, ConsumerHeartbeat.class));
        String without = new String(json, StandardCharsets.UTF_8).replace("\"v\":1,", "").replace(",\"v\":1", "");
        assertEquals(hb, Json.read(without.getBytes(StandardCharsets.UTF_8), ConsumerHeartbeat.class));
    }
}
