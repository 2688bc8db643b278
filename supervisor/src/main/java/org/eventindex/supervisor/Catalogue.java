package org.eventindex.supervisor;

import org.eventindex.names.DatasetName;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The experiment's file catalogue: which files (GUID, event count) a dataset contains. */
public interface Catalogue {

    /**
     * One file of a dataset.
     *
     * @param guid   the file's GUID, in the producers' form (upper case, 8-4-4-4-12)
     * @param events event count, -1 when the catalogue does not know it
     */
    record File(String name, String guid, long events, long bytes) {
        public File {
            Objects.requireNonNull(guid, "guid is null");
        }
    }

    /**
     * The files of a dataset, or empty when the catalogue does not know the dataset.
     *
     * @throws IOException naming the dataset and the catalogue when it cannot be asked
     */
    Optional<List<File>> files(DatasetName dataset) throws IOException;
}
