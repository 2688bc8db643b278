package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Checks one LOADED dataset: its rows in Kudu against its HDFS file and the catalogue (its DATASETS row). The file's
 * rows are decided by the loader's own code ({@link FileRows}, its first-occurrence rule and the recorded
 * {@code insert_start} included) but not written; both sides are summed with the same {@link RowChecksum} the load
 * summed the rows it wrote with ({@code content_checksum}). So three things are compared: the file with the recorded
 * checksum and the catalogue's counts (a replaced file, even with the same counts, is {@code FILE_DIFFERS}), Kudu
 * with the recorded checksum (changed rows are {@code KUDU_DIFFERS}), and the file with Kudu, table by table. A
 * difference is reported naming both values; the loader's {@code DatasetLoader.repair} reloads a dataset whose Kudu
 * rows are wrong. A dataset loaded by a version that recorded no checksum is judged by the counts and the file against
 * Kudu only. Reads only: what the supervisor's scheduled verify runs, without the loader.
 */
public final class DatasetVerifier {
    private final KuduClient client;
    private final KuduTables tables;

    public DatasetVerifier(KuduClient client, KuduTables tables) {
        this.client = requireNonNull(client, "client is null");
        this.tables = requireNonNull(tables, "tables is null");
    }

    /** Verifies {@code catalogued} (a LOADED DATASETS row) against {@code source}, its file. Changes nothing. */
    public Verification verify(DatasetsRow catalogued, DatasetSource source) throws IOException {
        requireNonNull(catalogued, "catalogued is null");
        requireNonNull(source, "source is null");
        if (!catalogued.isLoaded() || catalogued.insertStart() == null) {
            throw new IllegalArgumentException("dataset " + catalogued.dataset() + " is " + catalogued.state()
                    + ": only a LOADED dataset can be verified");
        }
        KuduTablesConfig config = tables.config();
        Verification.Side kudu = kuduSide(config, catalogued.dspid(), catalogued.rgid());
        Verification.Side file;
        try {
            file = fileSide(config, catalogued, source);
        } catch (IOException | RuntimeException e) {
            String reason = e instanceof IOException io ? org.eventindex.io.FileReason.describe(io) : e.getMessage();
            return new Verification(catalogued.dataset(), catalogued.dspid(), catalogued.rgid(),
                    Verification.Verdict.FILE_UNREADABLE, null, kudu,
                    List.of("file " + source.location() + " cannot be read: " + reason));
        }
        List<String> differences = new ArrayList<>();
        long catalogueEvents = orZero(catalogued.countEvents());
        long catalogueDuplicates = orZero(catalogued.numDuplicates());
        long fileEvents = file.events() + file.duplicates();
        Long recorded = catalogued.contentChecksum();
        boolean fileAgrees = fileEvents == catalogueEvents && file.duplicates() == catalogueDuplicates
                && (recorded == null || file.content() == recorded);
        if (fileEvents != catalogueEvents) {
            differences.add("the file holds " + fileEvents + " events, the catalogue says " + catalogueEvents);
        }
        if (file.duplicates() != catalogueDuplicates) {
            differences.add("the file gives " + file.duplicates() + " duplicates, the catalogue says "
                    + catalogueDuplicates);
        }
        if (recorded != null && file.content() != recorded) {
            differences.add("the file's rows have content checksum " + RowChecksum.hex(file.content())
                    + ", the load recorded " + RowChecksum.hex(recorded) + " (DATASETS content_checksum): the file"
                    + " is not the one loaded" + (kudu.content() == file.content() ? "; Kudu holds the file's rows"
                    + " (loaded from it by other means, or a column dropped since the load)" : ""));
        }
        if (recorded != null && kudu.content() != recorded && kudu.content() != file.content()) {
            differences.add("Kudu's rows have content checksum " + RowChecksum.hex(kudu.content())
                    + ", the load recorded " + RowChecksum.hex(recorded));
        }
        compare(differences, "EVENTS/MCEVENTS", kudu.events(), kudu.eventsChecksum(), file.events(),
                file.eventsChecksum());
        compare(differences, config.duplicatedEventsTable(), kudu.duplicates(), kudu.duplicatesChecksum(),
                file.duplicates(), file.duplicatesChecksum());
        Verification.Verdict verdict = differences.isEmpty() ? Verification.Verdict.OK
                : fileAgrees ? Verification.Verdict.KUDU_DIFFERS : Verification.Verdict.FILE_DIFFERS;
        return new Verification(catalogued.dataset(), catalogued.dspid(), catalogued.rgid(), verdict, file, kudu,
                differences);
    }

    private static void compare(List<String> differences, String table, long kuduRows, String kuduSum, long fileRows,
                                String fileSum) {
        if (kuduRows != fileRows) {
            differences.add(table + ": Kudu holds " + kuduRows + " rows, the file gives " + fileRows);
        }
        if (!kuduSum.equals(fileSum)) {
            differences.add(table + ": key-and-content checksum " + kuduSum + " in Kudu, " + fileSum + " from the"
                    + " file" + (kuduRows == fileRows ? " (same count: rows changed)" : ""));
        }
    }

    private Verification.Side kuduSide(KuduTablesConfig config, int dspid, int epoch) throws IOException {
        RowChecksum events = scan(config.eventsTable(), dspid, epoch);
        RowChecksum mc = scan(config.mcEventsTable(), dspid, epoch);
        RowChecksum duplicates = scan(config.duplicatedEventsTable(), dspid, epoch);
        return new Verification.Side(events.rows() + mc.rows(), events.hexWith(mc), duplicates.rows(),
                duplicates.hex());
    }

    private RowChecksum scan(String tableName, int dspid, int epoch) throws IOException {
        KuduTable table = client.openTable(tableName);
        RowChecksum sum = new RowChecksum(table.getSchema());
        EventRows.forEach(client, tableName, dspid, epoch, sum::add);
        return sum;
    }

    private Verification.Side fileSide(KuduTablesConfig config, DatasetsRow catalogued, DatasetSource source)
            throws IOException {
        try (EventSource events = EventSource.open(source, catalogued.dataset())) {
            // the rows a load would write, summed as a load sums them, and written nowhere
            FileRows rows = new FileRows(client, config, events, source.location(), catalogued.dataset(),
                    catalogued.dspid(), catalogued.rgid(), DatasetsReader.micros(catalogued.insertStart()));
            while (rows.next()) {
                // decided and summed; nothing else to do with the row
            }
            return new Verification.Side(rows.unique(), RowChecksum.hex(rows.uniqueSum()), rows.duplicates(),
                    RowChecksum.hex(rows.duplicatesSum()));
        }
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }
}
