package org.eventindex.operator;

import org.eventindex.supervisor.Supervisor;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/** An in-process supervisor for the operator commands to talk to, on an ephemeral HTTP port, once it is ready. */
final class RunningSupervisor {
    private static final Duration READY = Duration.ofSeconds(60);

    private RunningSupervisor() {
    }

    /**
     * Starts a supervisor on {@code brokers} journalling into {@code journal}, with {@code extra} keys (login, TLS)
     * and {@code env} (passwords), and waits until it is subscribed to its queues.
     */
    static Supervisor start(String brokers, Path journal, Properties extra, Map<String, String> env)
            throws IOException {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, brokers);
        p.setProperty(SupervisorConfig.JOURNAL_DIR, journal.toString());
        p.setProperty(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.SHUTDOWN_GRACE, "10s");
        p.putAll(extra);
        Supervisor s = new Supervisor(SupervisorConfig.fromProperties(p, env), Clock.systemUTC());
        s.start();
        Await.until("supervisor subscribed to its queues", READY, () -> s.readiness().ready());
        return s;
    }
}
