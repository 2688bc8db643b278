package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * Kudu tables read by their configured names, followed across a rebuild's swap. A Kudu table handle follows the
 * table's id, not its name, and a swap renames the tables, DATASETS last (decision 0069). So at most every
 * {@link #CHECK_INTERVAL} one caller of {@link #table} asks the master for the id of the table now named DATASETS and,
 * when it changed, reopens every table by name: readers move to the swapped-in tables within a second, and reads
 * under way finish on the tables they started with (kept until dropped). A failed check (a name missing halfway
 * through a swap, the master away) keeps the tables in use and is tried again at the next interval. Thread-safe.
 * <p>
 * One instance per reader (event lookups, the dataset pages' readers): each check is one master call, made only
 * while its reader is asked.
 */
final class NamedTables {
    private static final Logger LOG = LoggerFactory.getLogger(NamedTables.class);
    /** How often the name DATASETS is checked for another table (a swap). */
    static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);

    private final KuduClient client;
    private final String datasets;
    private final List<String> names;
    private final String readers;
    private final LongSupplier nanoTime;
    private final AtomicLong nextCheck;
    private final AtomicLong switches = new AtomicLong();
    private volatile Map<String, KuduTable> open;

    /**
     * Opens the tables.
     *
     * @param datasets the DATASETS table's name, whose id tells a swap (renamed last); opened as well
     * @param others   the other tables read
     * @param readers  who reads them, for the log line of a switch ("lookups", "dataset pages")
     * @param nanoTime the clock of the checks
     * @throws KuduException when a table is missing (names the table) or Kudu is unreachable
     */
    NamedTables(KuduClient client, String datasets, List<String> others, String readers, LongSupplier nanoTime)
            throws KuduException {
        this.client = requireNonNull(client, "client is null");
        this.datasets = requireNonNull(datasets, "datasets is null");
        this.names = List.copyOf(others);
        this.readers = requireNonNull(readers, "readers is null");
        this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
        this.open = openAll(client.openTable(datasets));
        this.nextCheck = new AtomicLong(nanoTime.getAsLong() + CHECK_INTERVAL.toNanos());
    }

    /** The table now under {@code name} (one of those given), checked for a swap at most once per interval. */
    KuduTable table(String name) {
        KuduTable t = current().get(name);
        if (t == null) {
            throw new IllegalArgumentException("table " + name + " is not one of " + open.keySet());
        }
        return t;
    }

    /** How many times the tables were reopened because a swap put other tables under their names. */
    long switches() {
        return switches.get();
    }

    private Map<String, KuduTable> openAll(KuduTable named) throws KuduException {
        Map<String, KuduTable> tables = new LinkedHashMap<>();
        tables.put(datasets, named);
        for (String n : names) {
            tables.put(n, client.openTable(n));
        }
        return Map.copyOf(tables);
    }

    private Map<String, KuduTable> current() {
        long now = nanoTime.getAsLong();
        long due = nextCheck.get();
        if (now - due >= 0 && nextCheck.compareAndSet(due, now + CHECK_INTERVAL.toNanos())) {
            Map<String, KuduTable> tables = open;
            String was = tables.get(datasets).getTableId();
            try {
                KuduTable named = client.openTable(datasets);
                if (!named.getTableId().equals(was)) {
                    open = openAll(named);
                    switches.incrementAndGet();
                    LOG.info("{} now read the tables named {} (DATASETS id {}, was {}): a swap moved them", readers,
                            open.keySet(), named.getTableId(), was);
                }
            } catch (KuduException e) {
                LOG.debug("table check of {} failed, the tables in use stay: {}", datasets, e.getMessage());
            }
        }
        return open;
    }
}
