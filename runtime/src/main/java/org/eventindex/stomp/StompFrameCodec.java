package org.eventindex.stomp;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads and writes STOMP 1.2 frames: {@code COMMAND EOL (header EOL)* EOL body NUL}, EOL being LF or CR LF. Header
 * names and values are escaped ({@code \r \n \c \\}) except in CONNECT and CONNECTED frames. A {@code content-length}
 * header fixes the body length (the body may then hold NUL bytes); without it the body ends at the first NUL.
 * Blank lines between frames are heart-beats and are skipped.
 */
final class StompFrameCodec {
    /** Of an oversize body, this many bytes (at most the body limit) are kept for the message's handler. */
    static final int OVERSIZE_PREVIEW_BYTES = 64 * 1024;
    /** Header lines needed to route, acknowledge and frame a message: kept (up to this size) beyond the limit. */
    static final int PROTOCOL_LINE_MAX = 1024;
    private static final Set<String> PROTOCOL_HEADERS = Set.of("message-id", "subscription", "ack", "destination",
            "content-length", "content-type", "receipt-id", "redelivered", "message", "version", "heart-beat",
            "server", "session");

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
     * Reads the next frame with the {@link StompFrameLimits#DEFAULT} limits, skipping heart-beat EOLs.
     *
     * @throws EOFException when the peer closed the connection between frames
     * @throws IOException on a malformed frame
     */
    static StompFrame read(InputStream in) throws IOException {
        return read(in, StompFrameLimits.DEFAULT, () -> { });
    }

    /**
     * Reads the next frame, calling {@code onHeartbeat} for every heart-beat (LF) skipped on the way. A frame over
     * {@code limits} is read to its end, so the connection stays usable, but what is over the limits is dropped and
     * {@link StompFrame#oversize()} says so: header lines beyond the header limit (except the protocol headers),
     * and of a body beyond the body limit all but its first {@value #OVERSIZE_PREVIEW_BYTES} bytes.
     */
    static StompFrame read(InputStream in, StompFrameLimits limits, Runnable onHeartbeat) throws IOException {
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
        int budget = limits.maxHeaderBytes();
        Line commandLine = readLine(in, budget);
        if (commandLine.text == null) {
            throw new IOException("STOMP command line exceeds " + budget + " bytes");
        }
        String command = (char) first + commandLine.text;
        budget -= commandLine.length + 1;
        boolean escaped = !isConnectFrame(command);
        Map<String, String> headers = new LinkedHashMap<>();
        long droppedHeaderBytes = 0;
        for (Line line = readLine(in, Math.max(budget, PROTOCOL_LINE_MAX)); line.length > 0;
             line = readLine(in, Math.max(budget, PROTOCOL_LINE_MAX))) {
            String name = line.text == null ? null : headerName(line.text, command);
            boolean fits = line.text != null && line.length + 1 <= budget;
            if (fits || name != null && PROTOCOL_HEADERS.contains(name) && line.length <= PROTOCOL_LINE_MAX) {
                String value = line.text.substring(line.text.indexOf(':') + 1);
                headers.putIfAbsent(escaped ? unescape(name) : name, escaped ? unescape(value) : value);
                if (fits) {
                    budget -= line.length + 1;
                }
            } else {
                droppedHeaderBytes += line.length + 1;
                if (droppedHeaderBytes > Integer.MAX_VALUE) {
                    throw new IOException(command + " frame headers exceed " + Integer.MAX_VALUE + " bytes");
                }
            }
        }
        String oversize = droppedHeaderBytes == 0 ? null : command + " frame headers exceed the limit of "
                + limits.maxHeaderBytes() + " bytes; " + droppedHeaderBytes + " bytes of header lines were dropped";
        Body body = readBody(in, command, headers.get("content-length"), limits.maxBodyBytes());
        if (body.oversize != null) {
            oversize = oversize == null ? body.oversize : oversize + "; " + body.oversize;
        }
        return new StompFrame(command, headers, body.bytes, oversize);
    }

    private static String headerName(String line, String command) throws IOException {
        int colon = line.indexOf(':');
        if (colon < 0) {
            throw new IOException("malformed STOMP header line in " + command + " frame: no ':'");
        }
        return line.substring(0, colon);
    }

    private record Body(byte[] bytes, String oversize) {
    }

    private static Body readBody(InputStream in, String command, String contentLength, int maxBytes)
            throws IOException {
        int preview = Math.min(OVERSIZE_PREVIEW_BYTES, maxBytes);
        if (contentLength != null) {
            long length;
            try {
                length = Long.parseLong(contentLength.trim());
            } catch (NumberFormatException e) {
                throw new IOException("bad content-length '" + contentLength + "' in " + command + " frame");
            }
            if (length < 0 || length > Integer.MAX_VALUE) {
                throw new IOException("content-length " + length + " in " + command + " frame is out of range");
            }
            int keep = (int) (length <= maxBytes ? length : preview);
            byte[] body = in.readNBytes(keep);
            long dropped = length - keep;
            if (body.length != keep || dropped > 0 && skipFully(in, dropped) != dropped) {
                throw new EOFException("connection closed inside a " + command + " frame body");
            }
            int nul = in.read();
            if (nul != 0) {
                throw new IOException(command + " frame body is not followed by NUL");
            }
            return new Body(body, dropped == 0 ? null : oversizeText(command, length, maxBytes, body.length));
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        long length = 0;
        for (int b = in.read(); b != 0; b = in.read()) {
            if (b < 0) {
                throw new EOFException("connection closed inside a " + command + " frame body");
            }
            if (++length > Integer.MAX_VALUE) {
                throw new IOException(command + " frame body exceeds " + Integer.MAX_VALUE + " bytes");
            }
            if (length <= maxBytes) {
                body.write(b);
            }
        }
        if (length <= maxBytes) {
            return new Body(body.toByteArray(), null);
        }
        byte[] kept = Arrays.copyOf(body.toByteArray(), preview);
        return new Body(kept, oversizeText(command, length, maxBytes, kept.length));
    }

    private static String oversizeText(String command, long length, int maxBytes, int kept) {
        return command + " frame body of " + length + " bytes exceeds the limit of " + maxBytes
                + " bytes; only its first " + kept + " bytes were kept";
    }

    /** Reads and drops {@code n} bytes; returns how many there were before the end of the stream. */
    private static long skipFully(InputStream in, long n) throws IOException {
        byte[] scratch = new byte[8192];
        long done = 0;
        while (done < n) {
            int r = in.read(scratch, 0, (int) Math.min(scratch.length, n - done));
            if (r < 0) {
                break;
            }
            done += r;
        }
        return done;
    }

    /**
     * One line up to LF, without a trailing CR, decoded as UTF-8.
     *
     * @param text   null when the line was longer than the {@code keep} bytes asked for (it was read and dropped)
     * @param length the line's length in bytes, without CR LF
     */
    private record Line(String text, long length) {
    }

    private static Line readLine(InputStream in, int keep) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        long length = 0;
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("connection closed inside a frame header");
            }
            if (++length > Integer.MAX_VALUE) {
                throw new IOException("STOMP header line exceeds " + Integer.MAX_VALUE + " bytes");
            }
            if (length <= keep + 1L) {
                line.write(b); // one more than asked: room for a CR before the LF
            }
        }
        byte[] bytes = line.toByteArray();
        boolean cr = bytes.length > 0 && bytes[bytes.length - 1] == '\r' && bytes.length == length;
        long n = cr ? length - 1 : length;
        if (n > keep) {
            return new Line(null, n);
        }
        return new Line(new String(bytes, 0, (int) n, StandardCharsets.UTF_8), n);
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
