package org.eventindex.kudu;

import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.eventindex.consolidated.ConsolidatedFileReader;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * The events of a consolidated Parquet file, one at a time, in file order (sorted by (run, event), so duplicates
 * are adjacent in a single-run file), with the GUID and first trigger menu of the input file each came from; read from
 * the file, or taken from the {@link EventFeed} of a source fed while its file is written.
 */
final class EventSource implements Closeable {
    /** The magic number a Parquet file begins and ends with. */
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    /** The two bytes a gzip stream begins with (RFC 1952), as the consolidated SPB files of earlier versions did. */
    private static final byte[] GZIP_MAGIC = {0x1f, (byte) 0x8b};
    /** Head magic, footer length and tail magic: no Parquet file is shorter. */
    private static final int MIN_PARQUET_BYTES = 12;

    /** Null for a fed source. */
    private final ConsolidatedFileReader reader;
    /** Null for a file. */
    private final EventFeed feed;
    private final Map<String, TriggerMenu_p1> menus = new HashMap<>();
    /** The current event with its file GUID; the same instance is refilled by every {@link #next()}. */
    EventRecord event;
    TriggerMenu_p1 menu;

    private EventSource(EventFeed feed) throws IOException {
        this.reader = null;
        this.feed = feed;
        menus.putAll(feed.menus());
    }

    private EventSource(ConsolidatedFileReader reader) {
        this.reader = reader;
        this.feed = null;
        menus.putAll(EventFeed.firstMenus(reader.metadata()));
    }

    /**
     * Opens the file and reads its footer.
     *
     * @param dataset named in the refusal
     * @throws DatasetLoadException ({@link org.eventindex.EventIndexFailure.Kind#FATAL}) naming the file and the
     *                              reason when it is not a Parquet file: empty, too short, without the magic number
     *                              at either end, or gzip data such as a consolidated SPB file of an earlier version
     * @throws IOException          when the file cannot be read
     * @throws IllegalArgumentException naming the file when it is Parquet but not a consolidated file (its metadata)
     */
    static EventSource open(DatasetSource source, String dataset) throws IOException {
        if (source.feed() != null) {
            return new EventSource(source.feed());
        }
        InputFile file = source.inputFile().open();
        String notParquet = notParquet(file);
        if (notParquet != null) {
            throw new DatasetLoadException(FATAL, dataset, source.location() + " is not a Parquet file: " + notParquet);
        }
        return new EventSource(new ConsolidatedFileReader(file, source.location()));
    }

    /** Why {@code file} is not a Parquet file, or null when it begins and ends as one. */
    static String notParquet(InputFile file) throws IOException {
        long length = file.getLength();
        if (length == 0) {
            return "it is empty";
        }
        byte[] head = new byte[(int) Math.min(PARQUET_MAGIC.length, length)];
        byte[] tail = new byte[PARQUET_MAGIC.length];
        try (SeekableInputStream in = file.newStream()) {
            in.readFully(head);
            if (length >= MIN_PARQUET_BYTES) {
                in.seek(length - tail.length);
                in.readFully(tail);
            }
        }
        if (head.length >= GZIP_MAGIC.length && Arrays.equals(head, 0, GZIP_MAGIC.length, GZIP_MAGIC, 0,
                GZIP_MAGIC.length)) {
            return "it is gzip data, as a consolidated SPB file (.ei.spb) of an earlier version is; such files are no"
                    + " longer loaded: re-run the dataset's signal (supervisor resignal) so that a consumer writes its"
                    + " .parquet file";
        }
        if (!Arrays.equals(head, PARQUET_MAGIC)) {
            return "it does not begin with the Parquet magic number PAR1";
        }
        if (length < MIN_PARQUET_BYTES) {
            return "it is " + length + " bytes long, shorter than any Parquet file";
        }
        if (!Arrays.equals(tail, PARQUET_MAGIC)) {
            return "it begins with PAR1 but does not end with it (cut short, or still being written)";
        }
        return null;
    }

    /** @return false at the end (after the reader checked the footer's row count and checksum) */
    boolean next() throws IOException {
        EventRecord r = feed != null ? feed.next() : reader.nextRecord();
        if (r == null) {
            return false;
        }
        event = r;
        menu = menus.get(r.guid);
        return true;
    }

    /** True when the file holds a single run, so equal event numbers are adjacent. */
    boolean adjacentDuplicates() throws IOException {
        if (feed != null) {
            return feed.singleRun();
        }
        return reader.metadata().runs().size() <= 1;
    }

    /** True when the dataset is simulation (MCEVENTS), from the footer. */
    boolean simulation() throws IOException {
        if (feed != null) {
            return feed.simulation();
        }
        return reader.metadata().simulation();
    }

    @Override
    public void close() throws IOException {
        if (feed != null) {
            feed.close();
            return;
        }
        reader.close();
    }
}
