package org.eventindex.stomp;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads and writes STOMP 1.2 frames: {@code COMMAND EOL (header EOL)* EOL body NUL}, EOL being LF or CR LF. Header
 * names and values are escaped ({@code \r \n \c \\}) except in CONNECT and CONNECTED frames. A {@code content-length}
 * header fixes the body length (the body may then hold NUL bytes); without it the body ends at the first NUL.
 * Blank lines between frames are heart-beats and are skipped.
 */
final class StompFrameCodec {
    /** Refuse frames larger than this, so a broken peer cannot exhaust memory. */
    static final int MAX_BODY_BYTES = 64 << 20;
    static final int MAX_HEADER_BYTES = 1 << 20;

    private StompFrameCodec() {
    }

    static void write(StompFrame frame, OutputStream out) throws IOException {
        boolean escape = !isConnectFrame(frame.command());
        ByteArrayOutputStream head = new ByteArrayOutputStream(256);
        head.writeBytes(frame.command().getBytes(StandardCharsets.UTF_8));
        head.write('\n');
        for (Map.Entry<String, String> h : frame.headers().entrySet()) {
            head.writeBytes(encode(h.getKey(), escape));
            head.write(':');
            head.writeBytes(encode(h.getValue(), escape));
            head.write('\n');
        }
        head.write('\n');
        out.write(head.toByteArray());
        out.write(frame.body());
        out.write(0);
    }

    /**
     * Reads the next frame, skipping heart-beat EOLs.
     *
     * @throws EOFException when the peer closed the connection between frames
     * @throws IOException on a malformed frame
     */
    static StompFrame read(InputStream in) throws IOException {
        return read(in, () -> { });
    }

    /** As {@link #read(InputStream)}, calling {@code onHeartbeat} for every heart-beat (LF) skipped on the way. */
    static StompFrame read(InputStream in, Runnable onHeartbeat) throws IOException {
        int first;
        do {
            first = in.read();
            if (first < 0) {
                throw new EOFException("broker closed the connection");
            }
            if (first == '\n') {
                onHeartbeat.run();
            }
        } while (first == '\n' || first == '\r');
        int[] budget = {MAX_HEADER_BYTES};
        String command = (char) first + readLine(in, budget);
        boolean escaped = !isConnectFrame(command);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = readLine(in, budget); !line.isEmpty(); line = readLine(in, budget)) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new IOException("malformed STOMP header line in " + command + " frame: no ':'");
            }
            String name = escaped ? unescape(line.substring(0, colon)) : line.substring(0, colon);
            String value = escaped ? unescape(line.substring(colon + 1)) : line.substring(colon + 1);
            headers.putIfAbsent(name, value);
        }
        byte[] body = readBody(in, command, headers.get("content-length"));
        return new StompFrame(command, headers, body);
    }

    private static byte[] readBody(InputStream in, String command, String contentLength) throws IOException {
        if (contentLength != null) {
            int length;
            try {
                length = Integer.parseInt(contentLength.trim());
            } catch (NumberFormatException e) {
                throw new IOException("bad content-length '" + contentLength + "' in " + command + " frame");
            }
            if (length < 0 || length > MAX_BODY_BYTES) {
                throw new IOException("content-length " + length + " in " + command + " frame is out of range");
            }
            byte[] body = in.readNBytes(length);
            if (body.length != length) {
                throw new EOFException("connection closed inside a " + command + " frame body");
            }
            int nul = in.read();
            if (nul != 0) {
                throw new IOException(command + " frame body is not followed by NUL");
            }
            return body;
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int b = in.read(); b != 0; b = in.read()) {
            if (b < 0) {
                throw new EOFException("connection closed inside a " + command + " frame body");
            }
            if (body.size() >= MAX_BODY_BYTES) {
                throw new IOException(command + " frame body exceeds " + MAX_BODY_BYTES + " bytes");
            }
            body.write(b);
        }
        return body.toByteArray();
    }

    /** Reads up to LF, dropping a trailing CR; bytes decode as UTF-8. */
    private static String readLine(InputStream in, int[] budget) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("connection closed inside a frame header");
            }
            if (--budget[0] < 0) {
                throw new IOException("STOMP frame headers exceed " + MAX_HEADER_BYTES + " bytes");
            }
            line.write(b);
        }
        byte[] bytes = line.toByteArray();
        int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    private static boolean isConnectFrame(String command) {
        return "CONNECT".equals(command) || "CONNECTED".equals(command) || "STOMP".equals(command);
    }

    private static byte[] encode(String s, boolean escape) {
        if (!escape) {
            // CONNECT headers are not escaped, so they cannot carry line breaks.
            if (s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("CONNECT header text may not contain line breaks");
            }
            return s.getBytes(StandardCharsets.UTF_8);
        }
        return escape(s).getBytes(StandardCharsets.UTF_8);
    }

    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case ':' -> sb.append("\\c");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** @throws IOException on an undefined escape sequence, which STOMP 1.2 makes a fatal protocol error */
    static String unescape(String s) throws IOException {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (++i == s.length()) {
                throw new IOException("STOMP header ends inside an escape sequence: " + s);
            }
            switch (s.charAt(i)) {
                case '\\' -> sb.append('\\');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 'c' -> sb.append(':');
                default -> throw new IOException("undefined STOMP header escape \\" + s.charAt(i) + " in: " + s);
            }
        }
        return sb.toString();
    }
}
