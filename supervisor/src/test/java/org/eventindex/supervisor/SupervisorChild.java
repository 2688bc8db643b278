package org.eventindex.supervisor;

import java.io.IOException;
import org.eventindex.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** A supervisor as a child JVM ({@code SupervisorMain run --config}), for the tests that kill or pause one. */
final class SupervisorChild {
    private SupervisorChild() {
    }

    /** A test child's settings: the broker, the journal, loopback HTTP on {@code port}, quick retries and ticks. */
    static Map<String, String> properties(String brokers, Path journal, int port) {
        Map<String, String> p = new TreeMap<>();
        p.put(SupervisorConfig.BROKERS, brokers);
        p.put(SupervisorConfig.JOURNAL_DIR, journal.toString());
        p.put(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.put(SupervisorConfig.HTTP_PORT, Integer.toString(port));
        p.put(SupervisorConfig.SIGNAL_RETRY_INITIAL, "100ms");
        p.put(SupervisorConfig.SIGNAL_RETRY_MAX, "1s");
        p.put(SupervisorConfig.TICK_INTERVAL, "50ms");
        return p;
    }

    /** Writes {@code config} from the properties and starts the supervisor on it, its output to {@code log}. */
    static Process start(Path config, Map<String, String> properties, Path log) throws IOException {
        StringBuilder sb = new StringBuilder();
        properties.forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        Files.writeString(config, sb.toString());
        return ChildJvm.main(SupervisorMain.class).heap("256m").quickStart().args("run", "--config", config.toString())
                .start(log);
    }
}
