package org.eventindex.kudu;

import org.eventindex.consolidated.ConsolidatedFileReader;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbReader;
import org.eventindex.spb.SpbRecord;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The events of a consolidated file, one at a time, with the GUID and trigger menu of the file each came from.
 * Parquet files are sorted by (run, event), so duplicates are adjacent; SPB files (earlier versions) are in file
 * order.
 */
abstract class EventSource implements Closeable {
    /** The current event with its file GUID; the same instance is refilled by every {@link #next()}. */
    EventRecord event;
    TriggerMenu_p1 menu;

    /** @return false at the end */
    abstract boolean next() throws IOException;

    /** True when rows come sorted by (run, event) and hold a single run, so equal event numbers are adjacent. */
    abstract boolean adjacentDuplicates();

    /** True when the dataset is simulation (MCEVENTS); known before the first row for Parquet, after it for SPB. */
    abstract boolean simulation();

    static EventSource open(DatasetSource source, LoaderSettings settings) throws IOException {
        if (source.isParquet()) {
            if (source.inputFile() == null) {
                throw new IOException(source.location() + " is a Parquet file but the source gives no random access");
            }
            return new Parquet(new ConsolidatedFileReader(source.inputFile().open(), source.location()));
        }
        return new Spb(new SpbReader(source.opener().open(), source.location(), settings.spbLimits()));
    }

    private static final class Parquet extends EventSource {
        private final ConsolidatedFileReader reader;
        private final Map<String, TriggerMenu_p1> menus = new HashMap<>();

        Parquet(ConsolidatedFileReader reader) {
            this.reader = reader;
            for (ConsolidatedMetadata.FileInfo f : reader.metadata().files()) {
                if (!f.menus().isEmpty()) {
                    ConsolidatedMetadata.MenuInfo m = reader.metadata().menus().get(f.menus().get(0));
                    menus.put(f.guid(), TriggerMenu_p1.newBuilder().setSMK((int) m.smk()).setL1PSK((int) m.l1psk())
                            .setHLTPSK((int) m.hltpsk()).setL1Menu(m.l1Menu() == null ? "" : m.l1Menu()).build());
                }
            }
        }

        @Override
        boolean next() throws IOException {
            EventRecord r = reader.nextRecord();
            if (r == null) {
                return false;
            }
            event = r;
            menu = menus.get(r.guid);
            return true;
        }

        @Override
        boolean adjacentDuplicates() {
            return reader.metadata().runs().size() <= 1;
        }

        @Override
        boolean simulation() {
            return reader.metadata().simulation();
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }

    private static final class Spb extends EventSource {
        private final SpbReader reader;
        private final EventRecord current = new EventRecord();
        private String guid;
        private Boolean simulation;

        Spb(SpbReader reader) {
            this.reader = reader;
        }

        @Override
        boolean next() throws IOException {
            for (SpbRecord record = reader.next(); record != null; record = reader.next()) {
                if (record instanceof SpbRecord.BeginGuid b) {
                    guid = b.message().getGuid();
                    menu = null;
                } else if (record instanceof SpbRecord.TriggerMenu m) {
                    menu = m.message();
                } else if (record instanceof SpbRecord.Event ev) {
                    event = current.set(ev.message(), guid);
                    if (simulation == null) {
                        simulation = event.isSimulation;
                    }
                    return true;
                }
            }
            return false;
        }

        @Override
        boolean adjacentDuplicates() {
            return false;
        }

        @Override
        boolean simulation() {
            return simulation != null && simulation;
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }
}
