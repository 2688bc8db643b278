package org.eventindex.kudu;

import org.apache.kudu.client.Insert;

import java.io.IOException;

/**
 * Where the rows a load decides go instead of its Kudu sessions: a verification's checksum ({@link DatasetVerifier}),
 * or a rebuild that writes them elsewhere, routed by tablet ({@link StagedReplay#decide}). Each row is handed once, in
 * file order, and not touched by the loader afterwards.
 */
@FunctionalInterface
public interface RowSink {
    void accept(Insert row) throws IOException;
}
