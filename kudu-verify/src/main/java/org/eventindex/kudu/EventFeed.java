package org.eventindex.kudu;

import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A dataset's events handed to the loader while its consolidated file is still being written (the consumer's merge
 * feeds the rows it writes), instead of read back from the file: what a {@link DatasetSource#fedBy fed source}
 * loads. The feed gives what the file's footer would: whether it is simulation, whether it holds a single run, the
 * first trigger menu of each input file; then the events in file order.
 * <p>
 * The end of the events ({@link #next()} returning null) must come only once the file is complete, since the loader
 * then marks the dataset LOADED; a file that fails makes {@link #next()} throw, and the load fails leaving the dataset
 * LOADING, as an interrupted load does ({@code DatasetLoader}'s protocol: the next attempt deletes its rows).
 */
public interface EventFeed {

    /**
     * True when every event is simulated (MCEVENTS), as the footer's counts say. This and the two below may wait until
     * the writing knows (the consumer's merge starts once every object is read).
     *
     * @throws IOException naming the file when writing it failed before
     */
    boolean simulation() throws IOException;

    /** True when the events are of a single run, so that equal event numbers are adjacent in file order. */
    boolean singleRun() throws IOException;

    /** The first trigger menu of each input file that has one, by file GUID. */
    Map<String, TriggerMenu_p1> menus() throws IOException;

    /**
     * The next event, blocking until it is there; a record the loader may keep (its arrays are not written again).
     *
     * @return null after the last event, once the file is complete
     * @throws IOException naming the file when writing it failed or stopped
     */
    EventRecord next() throws IOException;

    /**
     * The loader is done with the feed, after its last event or because the load failed or found the dataset
     * already loaded: the feed stops waiting for it (whoever feeds it must not block on a loader that left).
     */
    void close();

    /**
     * The first trigger menu of each input file of {@code meta} that has one, by file GUID, as the loader takes it
     * (super master key, L1 and HLT prescale keys, L1 menu): what {@link #menus()} gives for a file of that footer.
     */
    static Map<String, TriggerMenu_p1> firstMenus(ConsolidatedMetadata meta) {
        Map<String, TriggerMenu_p1> menus = new HashMap<>();
        for (ConsolidatedMetadata.FileInfo f : meta.files()) {
            if (!f.menus().isEmpty()) {
                ConsolidatedMetadata.MenuInfo m = meta.menus().get(f.menus().get(0));
                menus.put(f.guid(), TriggerMenu_p1.newBuilder().setSMK((int) m.smk()).setL1PSK((int) m.l1psk())
                        .setHLTPSK((int) m.hltpsk()).setL1Menu(m.l1Menu() == null ? "" : m.l1Menu()).build());
            }
        }
        return menus;
    }
}
