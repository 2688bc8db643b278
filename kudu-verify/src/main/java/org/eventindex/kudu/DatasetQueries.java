package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.RowResult;
import org.eventindex.names.DatasetName;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Read helpers over the EventIndex tables, for tests, the demo and operators.
 * <p>
 * A dataset is present only when {@link #dataset} reports it {@link LoadState#LOADED}; the row counts and lookups
 * here read whatever rows exist, including those of a load still in progress.
 */
public final class DatasetQueries {
    private static final List<String> REF_COLUMNS = List.of(KuduSchemas.RUNNUMBER, KuduSchemas.EVENTNUMBER,
            KuduSchemas.DB, KuduSchemas.TK, KuduSchemas.DBRAW, KuduSchemas.TKRAW, KuduSchemas.DBESD,
            KuduSchemas.TKESD, KuduSchemas.DBAOD, KuduSchemas.TKAOD);

    private final KuduClient client;
    private final KuduTablesConfig config;
    private final DatasetsReader datasets;

    public DatasetQueries(KuduClient client, KuduTablesConfig config) {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.datasets = new DatasetsReader(client, config.datasetsTable());
    }

    /**
     * Calls {@code row} with every row of dataset {@code dspid} in epoch {@code epoch} of table {@code tableName}
     * (EVENTS, MCEVENTS or DUPLICATEDEVENTS of these tables), every column, read from the tablet leaders.
     */
    public void forEachRow(String tableName, int dspid, int epoch, java.util.function.Consumer<RowResult> row)
            throws KuduException {
        EventRows.forEach(client, tableName, dspid, epoch, row);
    }

    /**
     * The DATASETS row of {@code dataset} (full name, suffix included), if any.
     *
     * @throws IllegalArgumentException when the name cannot be parsed
     */
    public Optional<DatasetsRow> dataset(String dataset) throws KuduException {
        requireNonNull(dataset, "dataset is null");
        return datasets.find(DatasetName.parse(dataset));
    }

    /** Every DATASETS row, whatever its state (the catalogue a rebuild or a verification starts from). */
    public List<DatasetsRow> datasets() throws KuduException {
        return datasets.all();
    }

    /**
     * Rows of dataset {@code dspid} within {@code epoch}: events in EVENTS plus MCEVENTS (a dataset is in one of
     * them: simulation datasets in MCEVENTS), and duplicates in DUPLICATEDEVENTS.
     */
    public EventCounts countEvents(int dspid, int epoch) throws KuduException {
        return EventRows.counts(client, config, dspid, epoch);
    }

    /**
     * The EVENTS (else MCEVENTS) row of one event: a primary-key point lookup (the epoch prunes the scan to one range, the event
     * number to one bucket).
     */
    public Optional<EventRefs> lookup(int dspid, long eventNumber, int epoch) throws KuduException {
        RowResult r = EventRows.lookup(client, config.eventsTable(), dspid, eventNumber, epoch, REF_COLUMNS);
        if (r == null) {
            r = EventRows.lookup(client, config.mcEventsTable(), dspid, eventNumber, epoch, REF_COLUMNS);
        }
        if (r == null) {
            return Optional.empty();
        }
        return Optional.of(new EventRefs(
                r.isNull(KuduSchemas.RUNNUMBER) ? 0 : r.getInt(KuduSchemas.RUNNUMBER),
                r.getLong(KuduSchemas.EVENTNUMBER),
                string(r, KuduSchemas.DB), string(r, KuduSchemas.TK),
                string(r, KuduSchemas.DBRAW), string(r, KuduSchemas.TKRAW),
                string(r, KuduSchemas.DBESD), string(r, KuduSchemas.TKESD),
                string(r, KuduSchemas.DBAOD), string(r, KuduSchemas.TKAOD)));
    }

    private static String string(RowResult r, String column) {
        return r.isNull(column) ? null : r.getString(column);
    }
}
