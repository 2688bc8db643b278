package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Turns a complete {@link Selection} into the {@link ConsumerSignal} to send. Pure: the same dataset and selection
 * always give the same {@code signalId} and the same object list, so a re-sent signal is recognisably the same.
 */
final class SignalPlanner {
    private static final String ID_NAMESPACE = "eventindex-signal/v1";

    private SignalPlanner() {
    }

    /**
     * @throws IllegalStateException naming the dataset when the selection is not complete
     */
    static ConsumerSignal plan(String dataset, String container, Selection selection, int dspid, int epoch,
                               long tsMillis) {
        Objects.requireNonNull(dataset, "dataset is null");
        Objects.requireNonNull(container, "container is null");
        if (!selection.complete()) {
            throw new IllegalStateException("dataset " + dataset + " is not complete: " + selection.missingGuids().size()
                    + " of " + selection.expectedFiles() + " files have no valid object");
        }
        return new ConsumerSignal(ConsumerSignal.TYPE, signalId(dataset, selection.objects()), dataset, container,
                dspid, epoch, selection.objects(), selection.expectedEvents(), tsMillis);
    }

    /** A name-based UUID of the dataset and, per object in signal order, its URL and chosen GUIDs. */
    static String signalId(String dataset, List<SignalObject> objects) {
        StringBuilder sb = new StringBuilder(ID_NAMESPACE).append('\n').append(dataset).append('\n');
        for (SignalObject o : objects) {
            sb.append(o.url()).append('\t').append(String.join(",", o.guids())).append('\n');
        }
        return UUID.nameUUIDFromBytes(sb.toString().getBytes(StandardCharsets.UTF_8)).toString();
    }
}
