package org.eventindex.rebuild;

import org.eventindex.kudu.DatasetsRow;

import java.io.Serializable;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.OptionalInt;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * Which catalogued datasets a rebuild takes: those of one epoch, those whose name matches a glob
 * ({@code data17_13TeV.*.AOD.*}), both, or every one. Only LOADED datasets are ever taken: the others have no load
 * to replay (a dataset being loaded is caught up after the swap, docs/rebuild.md).
 *
 * @param epoch the epoch ({@code rgid}) to take, or empty for every epoch
 * @param glob  a glob over the full dataset name ({@code *} and {@code ?}), or null for every name
 */
public record DatasetSelection(OptionalInt epoch, String glob) implements Predicate<DatasetsRow>, Serializable {

    public DatasetSelection {
        requireNonNull(epoch, "epoch is null");
        if (glob != null && glob.isBlank()) {
            throw new IllegalArgumentException("the dataset pattern is blank");
        }
    }

    /** Every LOADED dataset. */
    public static DatasetSelection all() {
        return new DatasetSelection(OptionalInt.empty(), null);
    }

    @Override
    public boolean test(DatasetsRow row) {
        requireNonNull(row, "row is null");
        if (!row.isLoaded()) {
            return false;
        }
        if (epoch.isPresent() && row.rgid() != epoch.getAsInt()) {
            return false;
        }
        return glob == null || matcher().matches(Path.of(row.dataset()));
    }

    private PathMatcher matcher() {
        // Dataset names hold no '/', so a path glob is a name glob ('*' does not cross a '/').
        return FileSystems.getDefault().getPathMatcher("glob:" + glob);
    }

    @Override
    public String toString() {
        return (epoch.isPresent() ? "epoch " + epoch.getAsInt() : "every epoch")
                + (glob == null ? ", every dataset" : ", datasets matching " + glob);
    }
}
