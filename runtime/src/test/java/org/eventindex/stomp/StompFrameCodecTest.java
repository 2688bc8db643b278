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
        StompFrame f = StompFrameCodec.read(new ByteArrayInputStream(wire), StompFrameLimits.DEFAULT, () -> beats[0]++);
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

    private static final StompFrameLimits SMALL = new StompFrameLimits(2048, 1024);

    @Test
    void aBodyOverTheLimitIsDroppedPastItsFirstBytesAndTheNextFrameStillReads() throws IOException {
        byte[] big = new byte[100_000];
        java.util.Arrays.fill(big, (byte) 'x');
        big[0] = '{';
        for (boolean withLength : new boolean[] {true, false}) {
            Map<String, String> h = new LinkedHashMap<>();
            h.put("message-id", "ID:big");
            h.put("subscription", "sub-1");
            if (withLength) {
                h.put("content-length", Integer.toString(big.length));
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            StompFrameCodec.write(new StompFrame("MESSAGE", h, big), out);
            StompFrameCodec.write(new StompFrame("MESSAGE", Map.of("message-id", "ID:next"), "ok".getBytes(
                    StandardCharsets.UTF_8)), out);
            ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
            StompFrame f = StompFrameCodec.read(in, SMALL, () -> { });
            assertEquals("ID:big", f.header("message-id"));
            assertEquals("sub-1", f.header("subscription"));
            assertEquals(2048, f.body().length, "the first bytes, up to the limit, are kept");
            assertEquals('{', f.body()[0]);
            assertEquals("MESSAGE frame body of 100000 bytes exceeds the limit of 2048 bytes; only its first 2048"
                    + " bytes were kept", f.oversize());
            StompFrame next = StompFrameCodec.read(in, SMALL, () -> { });
            assertEquals("ID:next", next.header("message-id"));
            assertEquals("ok", new String(next.body(), StandardCharsets.UTF_8));
            assertEquals(null, next.oversize());
        }
        // At the limit exactly: complete.
        String exact = "MESSAGE\ncontent-length:2048\n\n" + "y".repeat(2048) + "\0";
        StompFrame f = StompFrameCodec.read(stream(exact), SMALL, () -> { });
        assertEquals(null, f.oversize());
        assertEquals(2048, f.body().length);
    }

    @Test
    void headerLinesOverTheLimitAreDroppedButTheProtocolHeadersAreKept() throws IOException {
        String wire = "MESSAGE\nbulk:" + "b".repeat(5000) + "\nfiller:" + "f".repeat(900) + "\nmessage-id:ID:h\n"
                + "subscription:sub-2\nack:a-9\ncontent-length:2\nother:" + "o".repeat(300) + "\n\nhi\0"
                + "RECEIPT\nreceipt-id:r\n\n\0";
        ByteArrayInputStream in = stream(wire);
        StompFrame f = StompFrameCodec.read(in, SMALL, () -> { });
        assertEquals("ID:h", f.header("message-id"));
        assertEquals("sub-2", f.header("subscription"));
        assertEquals("a-9", f.header("ack"));
        assertEquals("hi", new String(f.body(), StandardCharsets.UTF_8));
        assertEquals(null, f.header("bulk"));
        assertEquals(null, f.header("other"), "over the remaining budget and not a protocol header");
        assertTrue(f.oversize().startsWith("MESSAGE frame headers exceed the limit of 1024 bytes; "), f.oversize());
        assertEquals("r", StompFrameCodec.read(in, SMALL, () -> { }).header("receipt-id"));
        assertThrows(IOException.class, () -> StompFrameCodec.read(stream("M" + "x".repeat(2000) + "\n\n\0"), SMALL,
                () -> { }), "a command line over the header limit is a broken peer");
    }

    @Test
    void limitsOutsideTheirRangeAreRefusedNamingTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new StompFrameLimits(0, 4096));
        assertTrue(e.getMessage().contains("maxBodyBytes must be between 1024 and 1073741824 bytes, got 0"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new StompFrameLimits(4096, (64 << 20) + 1));
        assertThrows(IllegalArgumentException.class, () -> new StompFrameLimits((1 << 30) + 1, 4096));
    }

    private static ByteArrayInputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }
}
