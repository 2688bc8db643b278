package org.eventindex.rebuild;

import org.apache.kudu.client.AlterTableOptions;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.kudu.KuduTablesConfig;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Moves a set of tables under the live names by renaming them in Kudu: each live table goes to the outgoing prefix,
 * then the incoming table takes its name, table by table, DATASETS last. Readers that reopen their tables by name
 * when the live DATASETS changes id (the lookups, {@code KuduEventReader}) so move only once every other table has
 * moved; SQL tables name the Kudu tables and follow at their next statement (docs/rebuild.md, decision 0069).
 * <p>
 * Each table's step is decided by which of its three names exist, so a swap killed halfway is finished by running
 * it again, and a swap that is done changes nothing.
 */
final class TableSwap {
    private final KuduClient client;

    TableSwap(KuduClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    /**
     * Puts {@code incoming}'s tables under {@code live}'s names and {@code live}'s under {@code outgoing}'s.
     *
     * @return the renames done, as {@code FROM -> TO} (empty when the swap was already done)
     * @throws IllegalArgumentException when two of the prefixes are equal
     * @throws IllegalStateException    when a table is in no state a swap leaves (names the table and what exists)
     */
    List<String> swap(String live, String incoming, String outgoing) throws KuduException {
        requireNonNull(live, "live is null");
        requireNonNull(incoming, "incoming is null");
        requireNonNull(outgoing, "outgoing is null");
        if (live.equals(incoming) || live.equals(outgoing) || incoming.equals(outgoing)) {
            throw new IllegalArgumentException("the live ('" + live + "'), incoming ('" + incoming + "') and outgoing"
                    + " ('" + outgoing + "') table prefixes must differ");
        }
        List<String> liveNames = names(live);
        List<String> inNames = names(incoming);
        List<String> outNames = names(outgoing);
        // first check every table, so that a swap that cannot finish does not start
        for (int i = 0; i < liveNames.size(); i++) {
            step(liveNames.get(i), inNames.get(i), outNames.get(i), false, null);
        }
        List<String> done = new ArrayList<>();
        // DATASETS is first in tables(): renamed last
        for (int i = liveNames.size() - 1; i >= 0; i--) {
            step(liveNames.get(i), inNames.get(i), outNames.get(i), true, done);
        }
        return done;
    }

    /** The six tables of {@code prefix}, DATASETS first. */
    static List<String> names(String prefix) {
        return new KuduTablesConfig(prefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS, 1).tables();
    }

    private void step(String live, String in, String out, boolean act, List<String> done) throws KuduException {
        boolean hasLive = client.tableExists(live);
        boolean hasIn = client.tableExists(in);
        boolean hasOut = client.tableExists(out);
        if (hasLive && !hasIn && hasOut) {
            return; // swapped
        }
        if (hasLive && hasIn && !hasOut) {
            if (act) {
                rename(live, out, done);
                rename(in, live, done);
            }
            return;
        }
        if (!hasLive && hasIn && hasOut) {
            if (act) {
                rename(in, live, done); // a swap stopped between the two renames of this table
            }
            return;
        }
        throw new IllegalStateException("cannot swap table " + live + " with " + in + " (the old one to " + out
                + "): " + exists(live, hasLive) + ", " + exists(in, hasIn) + ", " + exists(out, hasOut)
                + "; a swap needs " + live + " and " + in + " and no " + out + " (drop the tables left by an earlier"
                + " swap with 'eventindex rebuild drop-old')");
    }

    private static String exists(String table, boolean exists) {
        return table + (exists ? " exists" : " does not exist");
    }

    private void rename(String from, String to, List<String> done) throws KuduException {
        client.alterTable(from, new AlterTableOptions().renameTable(to));
        done.add(from + " -> " + to);
    }

    /**
     * Deletes the six tables of {@code prefix} that exist.
     *
     * @return the tables deleted
     */
    List<String> drop(String prefix) throws KuduException {
        List<String> dropped = new ArrayList<>();
        for (String t : names(prefix)) {
            if (client.tableExists(t)) {
                client.deleteTable(t);
                dropped.add(t);
            }
        }
        return dropped;
    }
}
