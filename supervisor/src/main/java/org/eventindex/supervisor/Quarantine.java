package org.eventindex.supervisor;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Copies a rejected message somewhere an operator can inspect and re-drive it. Best effort: failures are logged. */
@FunctionalInterface
interface Quarantine {
    /** Does nothing (the journal and the log still record every rejection). */
    Quarantine NONE = (queue, rejection, body) -> { };

    void copy(String sourceQueue, Rejection rejection, byte[] body) throws IOException;

    /** The STOMP headers a quarantined copy carries: where it came from and why it was refused. */
    static Map<String, String> headers(String source, Rejection r) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("eventindex-source-queue", source);
        h.put("eventindex-reject-reason", r.reason().name());
        h.put("eventindex-reject-detail", oneLine(r.detail()));
        if (r.messageId() != null) {
            h.put("eventindex-original-id", oneLine(r.messageId()));
        }
        return h;
    }

    private static String oneLine(String s) {
        String t = s.replaceAll("[\\r\\n]+", " ");
        return t.length() > 1000 ? t.substring(0, 1000) + "..." : t;
    }
}
