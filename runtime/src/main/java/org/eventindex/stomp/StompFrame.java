package org.eventindex.stomp;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One STOMP frame: a command, headers in wire order (first occurrence of a repeated header wins, as STOMP 1.2
 * requires) and a body.
 *
 * @param oversize null for a complete frame; for a received frame over the {@link StompFrameLimits}, what was
 *                 dropped from it
 */
record StompFrame(String command, Map<String, String> headers, byte[] body, String oversize) {
    static final byte[] NO_BODY = new byte[0];

    StompFrame {
        requireNonNull(command, "command is null");
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(headers, "headers is null")));
        requireNonNull(body, "body is null");
    }

    StompFrame(String command, Map<String, String> headers, byte[] body) {
        this(command, headers, body, null);
    }

    static StompFrame of(String command, Map<String, String> headers) {
        return new StompFrame(command, headers, NO_BODY);
    }

    String header(String name) {
        return headers.get(name);
    }

    /** The broker's explanation in an ERROR frame: its {@code message} header plus the first line of the body. */
    String errorText() {
        String message = headers.getOrDefault("message", "");
        String body = new String(body(), java.nio.charset.StandardCharsets.UTF_8).strip();
        int eol = body.indexOf('\n');
        String firstLine = (eol < 0 ? body : body.substring(0, eol)).strip();
        if (firstLine.length() > 300) {
            firstLine = firstLine.substring(0, 300) + "...";
        }
        if (message.isEmpty()) {
            return firstLine.isEmpty() ? "(no message)" : firstLine;
        }
        return firstLine.isEmpty() || firstLine.contains(message) ? message : message + " (" + firstLine + ")";
    }

    @Override
    public String toString() {
        // Never print passcode headers.
        Map<String, String> shown = new LinkedHashMap<>(headers);
        shown.computeIfPresent("passcode", (k, v) -> "***");
        return command + shown + "[" + body.length + " bytes" + (oversize == null ? "" : ", oversize") + "]";
    }
}
