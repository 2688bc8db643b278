package org.eventindex.consumer;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.names.DatasetName;

import java.util.List;
import java.util.Objects;

/** A signal that passed {@link SignalValidator}: its parsed dataset name and objects, in signal order. */
public record ValidSignal(ConsumerSignal signal, DatasetName name, List<SelectedObject> objects) {
    public ValidSignal {
        Objects.requireNonNull(signal, "signal is null");
        Objects.requireNonNull(name, "name is null");
        objects = List.copyOf(Objects.requireNonNull(objects, "objects is null"));
    }

    public String signalId() {
        return signal.signalId();
    }

    public String dataset() {
        return signal.dataset();
    }

    public String container() {
        return signal.container();
    }
}
