package org.eventindex.stomp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StompFrameCodecTest {

    @Test
    void heartbeatsBetweenFramesAreSkippedAndCounted() throws IOException {
        byte[] wire = "\n\r\n\nRECEIPT\nreceipt-id:7\n\n\0".getBytes(StandardCharsets.UTF_8);
        int[] beats = {0};
        StompFrame f = StompFrameCodec.read(new ByteArrayInputStream(wire), () -> beats[0]++);
        assertEquals("RECEIPT", f.command());
        assertEquals("7", f.header("receipt-id"));
        assertEquals(3, beats[0], "LF, CR LF and LF are three heart-beats");
    }

    @Test
    void escapesHeadersAndKeepsBinaryBodyWithContentLength() throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("message-id", "ID:host-1:2");
        headers.put("odd", "a\\b\nc\rd");
        byte[] body = {1, 0, 2, 0};
        headers.put("content-length", "4");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StompFrameCodec.write(new StompFrame("MESSAGE", headers, body), out);
        String wire = out.toString(StandardCharsets.ISO_8859_1);
        assertTrue(wire.contains("message-id:ID\\chost-1\\c2\n"), wire);
        assertTrue(wire.contains("odd:a\\\\b\\nc\\rd\n"), wire);

        StompFrame back = StompFrameCodec.read(new ByteArrayInputStream(out.toByteArray()));
        assertEquals("MESSAGE", back.command());
        assertEquals(headers, back.headers());
        assertArrayEquals(body, back.body());
    }

    @Test
    void skipsHeartbeatsAcceptsCrLfAndKeepsFirstRepeatedHeader() throws IOException {
        String wire = "\n\r\n\nRECEIPT\r\nreceipt-id:r1\r\nreceipt-id:r2\r\n\r\n\0\nMESSAGE\nx:1\n\nbody\0";
        ByteArrayInputStream in = new ByteArrayInputStream(wire.getBytes(StandardCharsets.UTF_8));
        StompFrame receipt = StompFrameCodec.read(in);
        assertEquals("RECEIPT", receipt.command());
        assertEquals("r1", receipt.header("receipt-id"));
        StompFrame message = StompFrameCodec.read(in);
        assertEquals("body", new String(message.body(), StandardCharsets.UTF_8));
        assertThrows(EOFException.class, () -> StompFrameCodec.read(in));
    }

    @Test
    void connectFramesAreNotEscaped() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StompFrameCodec.write(StompFrame.of("CONNECT", Map.of("passcode", "a:b\\c")), out);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("passcode:a:b\\c\n"));
        StompFrame back = StompFrameCodec.read(new ByteArrayInputStream(out.toByteArray()));
        assertEquals("a:b\\c", back.header("passcode"));
        assertTrue(back.toString().contains("***"));
    }

    @Test
    void rejectsUndefinedEscapeAndBadContentLength() {
        assertThrows(IOException.class, () -> StompFrameCodec.read(stream("MESSAGE\nx:\\t\n\n\0")));
        assertThrows(IOException.class, () -> StompFrameCodec.read(stream("MESSAGE\ncontent-length:x\n\n\0")));
        assertThrows(IOException.class, () -> StompFrameCodec.read(stream("MESSAGE\ncontent-length:1\n\nab\0")));
        assertThrows(EOFException.class, () -> StompFrameCodec.read(stream("MESSAGE\n\nno end")));
    }

    @Test
    void errorTextCombinesMessageAndFirstBodyLine() {
        StompFrame error = new StompFrame("ERROR", Map.of("message", "boom"),
                "java.lang.SecurityException: bad\n\tat x".getBytes(StandardCharsets.UTF_8));
        assertEquals("boom (java.lang.SecurityException: bad)", error.errorText());
        assertTrue(StompHandshake.isSecurityError(error));
    }

    private static ByteArrayInputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }
}
