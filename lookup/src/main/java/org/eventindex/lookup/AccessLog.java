package org.eventindex.lookup;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The lookup service's access log: one line per lookup request, who asked what, how many and how long, as
 * {@code key=value} fields in a fixed order (a value with a space or a quote is quoted):
 * <pre>
 * 2026-12-06T16:40:01.123Z user=CN=alice,OU=Users,O=Example method=POST path=/lookup asked=3 found=2 status=200 duration_ms=12
 * </pre>
 * {@code user} is {@code -} when the service requires no authentication; {@code asked} and {@code found} are
 * {@code -} for a request refused before its events were read (400, 413, 503). The query string is not written:
 * the events asked are in the path of {@code GET /events/{run}/{event}} and counted for {@code POST /lookup}.
 */
public final class AccessLog {
    private final Clock clock;
    private final Consumer<String> out;

    public AccessLog(Clock clock, Consumer<String> out) {
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.out = Objects.requireNonNull(out, "out is null");
    }

    /** Lines to the SLF4J logger {@code name} at INFO (conf/logback.xml gives it its own file). */
    public static AccessLog to(String name) {
        Logger log = LoggerFactory.getLogger(name);
        return new AccessLog(Clock.systemUTC(), log::info);
    }

    /**
     * @param user  the authenticated user, or null
     * @param asked events asked, -1 when not read
     * @param found events found, -1 when not looked up
     */
    public void write(String user, String method, URI uri, int asked, int found, int status, Duration took) {
        Instant now = clock.instant();
        out.accept(now + " user=" + value(user) + " method=" + value(method) + " path=" + value(uri.getRawPath())
                + " asked=" + (asked < 0 ? "-" : asked) + " found=" + (found < 0 ? "-" : found)
                + " status=" + status + " duration_ms=" + took.toMillis());
    }

    private static String value(String v) {
        if (v == null || v.isEmpty()) {
            return "-";
        }
        if (v.chars().noneMatch(c -> c == ' ' || c == '"' || c == '\\' || c < 0x20)) {
            return v;
        }
        StringBuilder b = new StringBuilder("\"");
        v.chars().forEach(c -> {
            if (c == '"' || c == '\\') {
                b.append('\\').append((char) c);
            } else if (c < 0x20) {
                b.append(' ');
            } else {
                b.append((char) c);
            }
        });
        return b.append('"').toString();
    }
}
