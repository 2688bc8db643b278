package org.eventindex.operator;

import org.eventindex.supervisor.OperatorAnswer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The operator commands' reader of the supervisor's answers, by format version (decision 0055). */
class OperatorAnswerFormatTest {
    private static OperatorAnswer read(String json) throws IOException {
        return OperatorClient.answer(json.getBytes(StandardCharsets.UTF_8), "req-1");
    }

    @Test
    void answersWithoutAVersionOfThisVersionAndWithUnknownFieldsAreRead() throws IOException {
        String body = "\"type\":\"answer\",\"requestId\":\"req-1\",\"outcome\":\"OK\",\"detail\":\"resignalled\"";
        OperatorAnswer expected = new OperatorAnswer("answer", "req-1", "OK", null, null, "resignalled");
        assertEquals(expected, read("{" + body + "}"));
        assertEquals(expected, read("{\"v\":1," + body + "}"));
        assertEquals(expected, read("{\"v\":1," + body + ",\"operator\":\"alice\",\"took\":{\"ms\":3}}"));
    }

    @Test
    void anAnswerOfANewerFormatIsRefusedWithBothVersionsAndWhatToDo() {
        IOException e = assertThrows(IOException.class, () -> read("{\"v\":2,\"type\":\"answer\",\"requestId\":"
                + "\"req-1\",\"outcome\":\"OK\",\"detail\":\"d\"}"));
        assertTrue(e.getMessage().startsWith("the supervisor's answer to request req-1 (the request was applied or"
                + " refused as that answer says) has format version 2; this operator command (eventindex "),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("reads format versions up to 1: it was written by a newer release; upgrade"
                + " this operator command to the writer's release or later (docs/compatibility.md)"), e.getMessage());
    }
}
