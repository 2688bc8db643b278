package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.SessionConfiguration;
import org.eventindex.consolidated.EventRecord;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Writes the events of one load's file (steps 3 and the counting of 4 of {@link DatasetLoader}'s protocol): the rows
 * {@link FileRows} decides (the first occurrence of each event number to EVENTS, MCEVENTS for a simulation dataset,
 * later ones to DUPLICATEDEVENTS), all through one Kudu session; on the way it counts the trigger pairs and the
 * overlap with the other LOADED datasets of the run, and reports progress. One instance per load; close it, also
 * after a failure, to stop the pair counting thread and close the session.
 * <p>
 * With {@link LoaderSettings#loadThreads()} above 1 the rows, decided here in file order exactly as with one session,
 * are held compact until their tablet's batch is full, then built and written by that many sessions on their own
 * threads ({@link ParallelSessions}, decision 0078); progress then counts the rows applied by all of them.
 */
final class EventWriter implements AutoCloseable {

    /**
     * What a load wrote.
     *
     * @param events         events in the file
     * @param duplicates     rows written to DUPLICATEDEVENTS (occurrences after the first)
     * @param uniqDuplEvents event numbers seen more than once
     * @param smk            the first super master key seen (on an event, else in its file's trigger menu), or null
     * @param triggerPairs   the trigger pair counts of the events written to EVENTS/MCEVENTS
     * @param overlaps       events shared with each other LOADED dataset of the run, by its dspid (non-zero only)
     * @param uniqueSum      the {@link RowChecksum} of the rows written to EVENTS/MCEVENTS
     * @param duplicatesSum  the {@link RowChecksum} of the rows written to DUPLICATEDEVENTS
     */
    record Written(long events, long duplicates, long uniqDuplEvents, Integer smk, PairCounter triggerPairs,
                   Map<Integer, Long> overlaps, long uniqueSum, long duplicatesSum) {
        /** Rows written to EVENTS/MCEVENTS. */
        long unique() {
            return events - duplicates;
        }

        /** The dataset's content checksum: every row written, DUPLICATEDEVENTS included (DATASETS content_checksum). */
        long contentChecksum() {
            return uniqueSum + duplicatesSum;
        }
    }

    /** The tablet server's count of rows inserted, in a session's write metrics. */
    private static final String SUCCESSFUL_INSERTS = "successful_inserts";

    private final KuduClient client;
    private final KuduTablesConfig config;
    private final LoaderSettings settings;
    private final LoadRequest request;
    private final String dataset;
    private final long startMicros;
    private final List<Placement> others;
    private final DatasetLoader.Progress progress;

    private final KuduSession session;
    private final AsyncPairCounter pairs;
    private final ParallelSessions.Fault fault;
    private volatile ParallelSessions parallel;
    // the single session's rows applied and taken by Kudu, as last read (every hand-over batch of rows), for a gauge
    private volatile long appliedSeen;
    private volatile long writtenSeen;

    // set at the first event (a file without events opens no event table)
    private String tableNames;
    private DatasetAnalytics.Overlap overlap;

    private Integer smk;
    // set by divertTo: the rows go there instead of Kudu
    private RowSink sink;

    /**
     * @param startMicros the load's insert_start; a duplicate's {@code insertion_time} is this plus occurrence - 2
     * @param others      the other LOADED datasets of the run, to count the overlap with
     */
    EventWriter(KuduClient client, KuduTablesConfig config, LoaderSettings settings, LoadRequest request,
                long startMicros, List<Placement> others, DatasetLoader.Progress progress,
                ParallelSessions.Fault fault) throws KuduException {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.request = requireNonNull(request, "request is null");
        this.dataset = request.dataset().toString();
        this.startMicros = startMicros;
        this.others = List.copyOf(others);
        this.progress = requireNonNull(progress, "progress is null");
        this.session = newSession(client, settings, settings.sessionBufferRows());
        this.pairs = new AsyncPairCounter(dataset);
        this.fault = fault;
    }

    /** A session of the load: background flushes of {@code bufferRows} rows, the settings' interval and timeout. */
    static KuduSession newSession(KuduClient client, LoaderSettings settings, int bufferRows) {
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        session.setMutationBufferSpace(bufferRows);
        session.setFlushInterval((int) settings.flushInterval().toMillis());
        session.setTimeoutMillis(settings.operationTimeout().toMillis());
        return session;
    }

    /** Rows the tablet servers took from {@code session} so far (its write metrics, updated by each response). */
    static long rowsWritten(KuduSession session) {
        return session.getWriteOpMetrics().getMetric(SUCCESSFUL_INSERTS);
    }

    /**
     * Rows decided that Kudu has not yet taken: what this load holds in its session's buffers, within a hand-over
     * batch, or with several sessions also waiting for their tablet's batch and in hand-over; any thread.
     */
    long bufferedRows() {
        ParallelSessions p = parallel;
        return p != null ? p.bufferedRows() : Math.max(0, appliedSeen - writtenSeen);
    }

    /**
     * Sends every row {@link #write} decides to {@code sink} instead of writing it (nothing is written to Kudu; the
     * counting of trigger pairs and overlaps still runs). Before {@link #write}.
     */
    EventWriter divertTo(RowSink sink) {
        this.sink = requireNonNull(sink, "sink is null");
        return this;
    }

    /**
     * Streams the file's events into Kudu; returns after every row was flushed without a refusal. The caller opened
     * {@code source} and closes it.
     *
     * @throws DatasetLoadException when Kudu refuses rows or an event's reference or trigger mask is malformed
     * @throws IOException          when the file cannot be read or Kudu fails
     */
    Written write(EventSource source) throws IOException {
        FileRows rows = new FileRows(client, config, source, request.source().location(), dataset, request.dspid(),
                request.epoch(), startMicros);
        if (sink == null && settings.loadThreads() > 1) {
            rows.holdRows();
        }
        while (rows.next()) {
            EventRecord e = source.event;
            if (overlap == null) {
                openWriters(rows);
            }
            long count = rows.events();
            if (smk == null) {
                if (e.hasSmk) {
                    smk = e.smk;
                } else if (source.menu != null) {
                    smk = source.menu.getSMK();
                }
            }
            if (rows.first()) {
                pairs.add(rows.bits().fired, rows.bits().firedCount);
                overlap.add(e.runNumber, e.eventNumber);
            }
            if (sink != null) {
                sink.accept(rows.row());
            } else if (parallel != null) {
                parallel.add(rows.pending());
            } else {
                session.apply(rows.row());
                if ((count & (ParallelSessions.BATCH - 1)) == 0) {
                    appliedSeen = count;
                    writtenSeen = rowsWritten(session);
                }
            }
            if (count % settings.progressEvery() == 0) {
                if (parallel != null) {
                    parallel.check();
                    progress.events(dataset, parallel.applied());
                } else {
                    EventRows.failOnErrors(session, tableNames, "insert events", dataset);
                    progress.events(dataset, count);
                }
            }
        }
        if (parallel != null) {
            parallel.finish();
        }
        session.flush();
        appliedSeen = writtenSeen;
        if (tableNames != null) {
            EventRows.failOnErrors(session, tableNames, "insert events", dataset);
        }
        progress.events(dataset, rows.events());
        PairCounter triggerPairs = pairs.finish();
        Map<Integer, Long> overlaps = overlap == null ? Map.of() : overlap.result();
        return new Written(rows.events(), rows.duplicates(), rows.uniqDuplEvents(), smk, triggerPairs, overlaps,
                rows.uniqueSum(), rows.duplicatesSum());
    }

    /** At the first event, once {@code rows} opened the event table the file's content decides. */
    private void openWriters(FileRows rows) throws KuduException {
        String table = rows.eventTable().getName();
        tableNames = table + "/" + config.duplicatedEventsTable();
        overlap = new DatasetAnalytics.Overlap(client, table, others);
        if (sink == null && settings.loadThreads() > 1) {
            parallel = new ParallelSessions(client, settings, rows.inserts(), tableNames, dataset, fault);
        }
    }

    /** Stops the pair counting and loading threads if {@link #write()} did not finish, and closes the session. */
    @Override
    public void close() throws IOException {
        pairs.close();
        try {
            if (parallel != null) {
                parallel.close();
            }
        } finally {
            session.close();
        }
    }
}
