package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.ListTablesResponse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a Kudu cluster answers, through a client built by its owner (who logged it in, e.g. with Kerberos): one
 * table listing from the masters, and the tables the caller needs. No tablet server is asked. The call takes up to the
 * client's admin operation timeout when the masters are down; callers that must answer sooner run it on a thread of
 * its own with a deadline (the ops module's {@code DependencyChecks} does).
 */
public final class KuduProbe {
    private KuduProbe() {
    }

    /**
     * Returns when the masters answered and every table of {@code tables} exists.
     *
     * @throws IOException naming the masters and what failed, or the missing tables
     */
    public static void check(KuduClient client, List<String> tables) throws IOException {
        Objects.requireNonNull(client, "client is null");
        Objects.requireNonNull(tables, "tables is null");
        String masters = client.getMasterAddressesAsString();
        ListTablesResponse listed;
        try {
            listed = client.getTablesList();
        } catch (KuduException e) {
            throw new IOException("Kudu masters " + masters + " unreachable: " + firstLine(e), e);
        }
        Set<String> present = new HashSet<>(listed.getTablesList());
        List<String> missing = new ArrayList<>();
        for (String t : tables) {
            if (!present.contains(t)) {
                missing.add(t);
            }
        }
        if (!missing.isEmpty()) {
            throw new IOException("Kudu masters " + masters + " answer but table(s) " + String.join(", ", missing)
                    + " do not exist (create them with kudu-loader create-tables)");
        }
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.lines().findFirst().orElse(m);
    }
}
