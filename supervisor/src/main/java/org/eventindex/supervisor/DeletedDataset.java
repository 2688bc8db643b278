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
 * @param stepsLeft   the steps of the operator's {@code delete-dataset} not reported done ({@code HDFS_FILE},
 *                    {@code KUDU_ROWS}); empty once it finished, or when it tracked none (deleted before 0.2.0)
 * @param finishWith  the command that finishes those steps; null when none is left
 */
record DeletedDataset(String name, int dspid, int epoch, long deletedAt, String reason, List<String> objectsLeft,
                      List<String> stepsLeft, String finishWith) {
    DeletedDataset {
        Objects.requireNonNull(name, "name is null");
        objectsLeft = List.copyOf(objectsLeft);
        stepsLeft = stepsLeft == null ? List.of() : List.copyOf(stepsLeft);
        finishWith = stepsLeft.isEmpty() ? null : finishWith;
    }

    /** The same tombstone without {@code deleted} among its objects left. */
    DeletedDataset without(List<String> deleted) {
        return new DeletedDataset(name, dspid, epoch, deletedAt, reason,
                objectsLeft.stream().filter(u -> !deleted.contains(u)).toList(), stepsLeft, finishWith);
    }

    /** The same tombstone with {@code done} no longer among its steps left. */
    DeletedDataset withStepsDone(List<String> done) {
        return new DeletedDataset(name, dspid, epoch, deletedAt, reason, objectsLeft,
                stepsLeft.stream().filter(s -> !done.contains(s)).toList(), finishWith);
    }

    /** Whether the operator's command has steps left (the objects are the cleanup's, which needs no operator). */
    boolean unfinished() {
        return !stepsLeft.isEmpty();
    }

    /** What is left, in words: the command's steps, then the objects (for answers and the console). */
    String left() {
        List<String> parts = new java.util.ArrayList<>();
        stepsLeft.forEach(s -> parts.add(s.equals("HDFS_FILE") ? "its HDFS file" : s.equals("KUDU_ROWS")
                ? "its Kudu rows" : s));
        if (!objectsLeft.isEmpty()) {
            parts.add(objectsLeft.size() + " objects (the cleanup deletes them)");
        }
        return parts.isEmpty() ? "nothing" : String.join(", ", parts);
    }

    /** What {@code /datasets/<name>} serves for it. */
    View view() {
        return new View(name, "DELETED", dspid, epoch, Instant.ofEpochMilli(deletedAt), reason, objectsLeft, stepsLeft,
                finishWith);
    }

    /**
     * The served view: {@code state} is {@code DELETED}; {@code objectsLeft} are those the cleanup has still to go;
     * {@code stepsLeft} those of the operator's command, which {@code finishWith} finishes.
     */
    record View(String name, String state, int dspid, int epoch,
                @JsonSerialize(using = ToStringSerializer.class) Instant deletedAt, String reason,
                List<String> objectsLeft, List<String> stepsLeft, String finishWith) {
    }

    /** Why a message naming this dataset is refused: {@code what} says what it asked for. */
    Rejection refusal(String what, String messageId) {
        return new Rejection(RejectReason.DATASET_DELETED, "dataset " + name + " was deleted by an operator at "
                + Instant.ofEpochMilli(deletedAt) + (reason == null ? "" : " (" + reason + ")") + "; " + what,
                messageId, name);
    }
}
