package org.eventindex.kudu;

import org.apache.kudu.Schema;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.Operation;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.SessionConfiguration;
import org.apache.kudu.client.Update;
import org.apache.kudu.client.Upsert;
import org.eventindex.names.DatasetName;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;
import static java.util.Objects.requireNonNull;

/**
 * Writes DATASETS rows for the loader (its protocol's states and counts), and decides a load from the row read by
 * {@link DatasetsReader}.
 */
final class DatasetsTable {
    private final KuduClient client;
    private final String tableName;
    private final DatasetsReader reader;

    DatasetsTable(KuduClient client, String tableName) {
        this.client = requireNonNull(client, "client is null");
        this.tableName = requireNonNull(tableName, "tableName is null");
        this.reader = new DatasetsReader(client, tableName);
    }

    /** What a load is to do, decided from one read of the dataset's DATASETS row ({@link #decide}). */
    sealed interface Decision {
        /** LOADED already by the same load id at the same placement: nothing to write; the stored counts. */
        record AlreadyLoaded(long events, long duplicates) implements Decision {
        }

        /**
         * Refused, nothing changed: DATASETS holds a newer selection under another load id (superseded), or the same
         * load id LOADED at another placement.
         */
        record Refused(String reason) implements Decision {
        }

        /** No row: a first load. */
        record Fresh() implements Decision {
        }

        /**
         * A row of an earlier, interrupted or other load, whose rows the load replaces; {@code movedFrom} is the
         * row's placement when the supervisor placed the dataset elsewhere since (rows to delete there too).
         */
        record Replace(Optional<Placement> movedFrom) implements Decision {
        }
    }

    /** Reads the row of {@code request}'s dataset once and says what the load is to do; changes nothing. */
    Decision decide(LoadRequest request) throws KuduException {
        Optional<DatasetsRow> found = find(request.dataset());
        if (found.isEmpty()) {
            return new Decision.Fresh();
        }
        DatasetsRow r = found.get();
        String superseded = superseded(r, request.loadId(), request.selectedAt());
        if (superseded != null) {
            return new Decision.Refused(superseded);
        }
        boolean samePlacement = r.dspid() == request.dspid() && r.rgid() == request.epoch();
        if (r.isLoaded() && request.loadId().equals(r.loadId())) {
            if (!samePlacement) {
                return new Decision.Refused("already LOADED with load id " + r.loadId() + " as dspid " + r.dspid()
                        + " epoch " + r.rgid() + ", but the request places the same load at dspid " + request.dspid()
                        + " epoch " + request.epoch() + "; use a new load id to move it");
            }
            long events = orZero(r.countEvents());
            return new Decision.AlreadyLoaded(events, orZero(r.numDuplicates()));
        }
        return new Decision.Replace(r.rgid() >= 0 && !samePlacement
                ? Optional.of(new Placement(r.dspid(), r.rgid())) : Optional.empty());
    }

    /**
     * Refuses a load ({@code loadId}, selected at {@code selectedAt} ms) if the row holds, loaded or loading, a newer
     * selection under another load id; changes nothing.
     *
     * @throws DatasetLoadException naming both selections when the load is superseded
     */
    void checkNotSuperseded(DatasetName name, String loadId, long selectedAt) throws IOException {
        Optional<DatasetsRow> found = find(name);
        String superseded = found.isEmpty() ? null : superseded(found.get(), loadId, selectedAt);
        if (superseded != null) {
            throw new DatasetLoadException(FATAL, name.toString(), superseded);
        }
    }

    /** @return why a load of {@code loadId} selected at {@code selectedAt} is superseded by row {@code r}, or null */
    private static String superseded(DatasetsRow r, String loadId, long selectedAt) {
        if (selectedAt <= 0 || r.signalTs() == null || r.signalTs() <= selectedAt || loadId.equals(r.loadId())) {
            return null;
        }
        return "superseded: DATASETS holds load " + r.loadId() + " (" + r.state() + ") of a selection made at "
                + Instant.ofEpochMilli(r.signalTs()) + ", newer than this load " + loadId + " selected at "
                + Instant.ofEpochMilli(selectedAt) + "; nothing changed";
    }

    /** The row of {@code name}, if any (read by {@link DatasetsReader}). */
    Optional<DatasetsRow> find(DatasetName name) throws KuduException {
        return reader.find(name);
    }

    /** The LOADED datasets of run {@code runNumber} other than {@code excludeDspid}. */
    List<Placement> loadedInRun(int runNumber, int excludeDspid) throws KuduException {
        KuduTable table = client.openTable(tableName);
        Schema s = table.getSchema();
        KuduScanner scanner = client.newScannerBuilder(table)
                .setProjectedColumnNames(List.of(KuduSchemas.DSPID, KuduSchemas.RGID, KuduSchemas.STATE))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RUNNUMBER),
                        KuduPredicate.ComparisonOp.EQUAL, runNumber))
                .build();
        List<Placement> others = new ArrayList<>();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    if (!r.isNull(KuduSchemas.DSPID) && !r.isNull(KuduSchemas.RGID)
                            && LoadState.LOADED.name().equals(r.isNull(KuduSchemas.STATE) ? null
                            : r.getString(KuduSchemas.STATE))
                            && r.getInt(KuduSchemas.DSPID) != excludeDspid) {
                        others.add(new Placement(r.getInt(KuduSchemas.DSPID), r.getInt(KuduSchemas.RGID)));
                    }
                }
            }
        } finally {
            scanner.close();
        }
        return others;
    }

    /** Deletes the row of {@code dataset} (absent is fine). */
    void delete(DatasetName name) throws IOException {
        org.apache.kudu.client.Delete delete = client.openTable(tableName).newDelete();
        KuduSchemas.addDatasetKey(delete.getRow(), name);
        KuduSession session = client.newSession();
        try {
            session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_SYNC);
            OperationResponse response = session.apply(delete);
            if (response.hasRowError() && !response.getRowError().getErrorStatus().isNotFound()) {
                throw new DatasetLoadException(RETRIABLE, name.toString(), "could not delete its " + tableName
                        + " row: " + response.getRowError());
            }
        } finally {
            session.close();
        }
    }

    /** Changes only the state of an existing row. */
    void markState(DatasetName name, LoadState state) throws IOException {
        Update update = client.openTable(tableName).newUpdate();
        PartialRow row = update.getRow();
        KuduSchemas.addDatasetKey(row, name);
        row.addString(KuduSchemas.STATE, state.name());
        apply(name.toString(), update);
    }

    /** Marks the dataset LOADING for {@code request}, clearing the counts of any earlier load. */
    void markLoading(LoadRequest request, Instant start) throws IOException {
        write(request, row -> {
            row.addString(KuduSchemas.STATE, LoadState.LOADING.name());
            if (request.selectedAt() > 0) {
                row.addLong(KuduSchemas.SIGNAL_TS, request.selectedAt());
            }
            row.addLong(KuduSchemas.INSERT_START, DatasetsReader.micros(start));
            row.setNull(KuduSchemas.INSERT_END);
            row.setNull(KuduSchemas.COUNT_EVENTS);
            row.setNull(KuduSchemas.UNIQ_DUPL_EVENTS);
            row.setNull(KuduSchemas.NUM_DUPLICATES);
            row.setNull(KuduSchemas.SMK);
            if (row.getSchema().hasColumn(KuduSchemas.CONTENT_CHECKSUM)) {
                row.setNull(KuduSchemas.CONTENT_CHECKSUM);
            }
        });
    }

    /**
     * Marks the dataset LOADED with the counts of what was {@code written}, unless a newer selection started
     * loading meanwhile: then its load, not this one, ends LOADED.
     *
     * @throws DatasetLoadException when superseded meanwhile; the row is left as it is
     */
    void markLoaded(LoadRequest request, EventWriter.Written written, Instant end) throws IOException {
        checkNotSuperseded(request.dataset(), request.loadId(), request.selectedAt());
        write(request, row -> {
            row.addString(KuduSchemas.STATE, LoadState.LOADED.name());
            row.addLong(KuduSchemas.INSERT_END, DatasetsReader.micros(end));
            row.addLong(KuduSchemas.COUNT_EVENTS, written.events());
            row.addLong(KuduSchemas.UNIQ_DUPL_EVENTS, written.uniqDuplEvents());
            row.addLong(KuduSchemas.NUM_DUPLICATES, written.duplicates());
            if (written.smk() == null) {
                row.setNull(KuduSchemas.SMK);
            } else {
                row.addInt(KuduSchemas.SMK, written.smk());
            }
            if (row.getSchema().hasColumn(KuduSchemas.CONTENT_CHECKSUM)) {
                row.addLong(KuduSchemas.CONTENT_CHECKSUM, written.contentChecksum());
            }
        });
    }

    private interface RowFiller {
        void fill(PartialRow row);
    }

    private void write(LoadRequest request, RowFiller filler) throws IOException {
        DatasetName name = request.dataset();
        KuduTable table = client.openTable(tableName);
        // An upsert only changes the columns it sets, so earlier fields (insert_start, AMI columns) survive.
        Upsert upsert = table.newUpsert();
        PartialRow row = upsert.getRow();
        KuduSchemas.addDatasetKey(row, name);
        row.addInt(KuduSchemas.DSPID, request.dspid());
        row.addInt(KuduSchemas.RGID, request.epoch());
        row.addString(KuduSchemas.LOAD_ID, request.loadId());
        row.addString(KuduSchemas.HDFS_PATH, request.source().location());
        filler.fill(row);
        apply(name.toString(), upsert);
    }

    private void apply(String dataset, Operation operation) throws IOException {
        KuduSession session = client.newSession();
        try {
            session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_SYNC);
            OperationResponse response = session.apply(operation);
            if (response.hasRowError()) {
                throw new DatasetLoadException(RETRIABLE, dataset, "could not write its " + tableName + " row: "
                        + response.getRowError());
            }
        } finally {
            session.close();
        }
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }
}
