package org.eventindex.deploy.chaos;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * What a harness started (processes, daemons, mounts, clients), stopped in reverse start order by {@link #close()}:
 * each failure is logged and the rest still stopped. Idempotent.
 */
final class Started implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Started.class);

    private final List<AutoCloseable> all = new ArrayList<>();

    /** Adds {@code c} (null is ignored) and returns it. */
    synchronized <T extends AutoCloseable> T add(T c) {
        if (c != null) {
            all.add(c);
        }
        return c;
    }

    @Override
    public synchronized void close() {
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (Exception e) {
                LOG.warn("stopping {} failed", all.get(i), e);
            }
        }
        all.clear();
    }
}
