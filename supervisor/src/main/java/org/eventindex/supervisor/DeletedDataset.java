package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the supervisor keeps of a dataset an operator deleted ({@code supervisor delete-dataset}): a tombstone, so that
 * a repeated delete is answered OK and any later message naming the dataset is refused ({@code DATASET_DELETED}), and
 * the objects the cleanup has still to delete. Times are epoch milliseconds.
 *
 * @param dspid       the dataset's id, -1 when it was never signalled
 * @param epoch       its epoch, -1 when it was never signalled
 * @param objectsLeft objects not deleted yet (sorted); empty once the cleanup deleted them all
 */
record DeletedDataset(String name, int dspid, int epoch, long deletedAt, String reason, List<String> objectsLeft) {
    DeletedDataset {
        Objects.requireNonNull(name, "name is null");
        objectsLeft = List.copyOf(objectsLeft);
    }

    /** The same tombstone without {@code deleted} among its objects left. */
    DeletedDataset without(List<String> deleted) {
        return new DeletedDataset(name, dspid, epoch, deletedAt, reason,
                objectsLeft.stream().filter(u -> !deleted.contains(u)).toList());
    }

    /** What {@code /datasets/<name>} serves for it. */
    View view() {
        return new View(name, "DELETED", dspid, epoch, Instant.ofEpochMilli(deletedAt), reason, objectsLeft);
    }

    /** The served view: {@code state} is {@code DELETED}; {@code objectsLeft} are those the cleanup has still to go. */
    record View(String name, String state, int dspid, int epoch,
                @JsonSerialize(using = ToStringSerializer.class) Instant deletedAt, String reason,
                List<String> objectsLeft) {
    }

    /** Why a message naming this dataset is refused: {@code what} says what it asked for. */
    Rejection refusal(String what, String messageId) {
        return new Rejection(RejectReason.DATASET_DELETED, "dataset " + name + " was deleted by an operator at "
                + Instant.ofEpochMilli(deletedAt) + (reason == null ? "" : " (" + reason + ")") + "; " + what,
                messageId, name);
    }
}
