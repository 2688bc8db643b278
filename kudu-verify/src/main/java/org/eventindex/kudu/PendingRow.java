package org.eventindex.kudu;

import org.eventindex.consolidated.EventRecord;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.util.Arrays;

/**
 * A row {@link FileRows} decided, before it is built as a Kudu row ({@link EventInserts}, decision 0078): the event's
 * values, its file's trigger menu, its occurrence and its trigger words. Held ({@link #held}), it is a few hundred
 * bytes, where a Kudu {@code Insert} holds ~6.5 KB of heap (its row as wide as the schema's 242 columns) from
 * {@code apply} to the tablet server's answer: with several sessions the load keeps rows in this form until their
 * tablet's batch is full, and builds the Inserts only then ({@code ParallelSessions}).
 */
final class PendingRow {
    final EventRecord event;
    /** The TriggerMenu of the event's file, or null. */
    final TriggerMenu_p1 menu;
    /** 1: the first occurrence of the event number (EVENTS/MCEVENTS); 2 and more: DUPLICATEDEVENTS. */
    final int occurrence;
    final TriggerWords words;

    private PendingRow(EventRecord event, TriggerMenu_p1 menu, int occurrence, TriggerWords words) {
        this.event = event;
        this.menu = menu;
        this.occurrence = occurrence;
        this.words = words;
    }

    /** A row built before the reader's next event: {@code e} itself, not copied. */
    static PendingRow current(EventRecord e, TriggerMenu_p1 menu, int occurrence, TriggerWords words) {
        return new PendingRow(e, menu, occurrence, words);
    }

    /**
     * A row built after later events are read: a shallow copy of {@code e}, as the reader refills its record (its
     * arrays are shared: the loader's readers never write an array they gave out).
     *
     * @param maskText whether the row stores the coded mask text (a table created before decision 0037)
     */
    static PendingRow held(EventRecord e, TriggerMenu_p1 menu, int occurrence, TriggerWords words, boolean maskText) {
        return new PendingRow(copy(e, maskText), menu, occurrence, words);
    }

    boolean duplicate() {
        return occurrence > 1;
    }

    private static EventRecord copy(EventRecord e, boolean maskText) {
        EventRecord c = new EventRecord();
        c.copyFieldsFrom(e);
        if (maskText) {
            c.l1PassedTrigMask = e.l1PassedTrigMask;
            c.efPassedTrigMask = e.efPassedTrigMask;
        }
        c.tokenCount = e.tokenCount;
        c.tokenNames = Arrays.copyOf(e.tokenNames, e.tokenCount);
        c.tokens = Arrays.copyOf(e.tokens, e.tokenCount);
        c.guid = e.guid;
        c.guidBytes = e.guidBytes;
        return c;
    }
}
