package org.eventindex.spb;

import org.eventindex.message.GuidInfo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

/**
 * Everything a producer reports about one SPB file, computed by streaming it once through {@link SpbReader}
 * (so it is also the file's validation).
 *
 * @param compressedBytes   gzip bytes read (the object size)
 * @param uncompressedBytes bytes of the SPB stream after gunzip
 * @param nevents           events in the file
 * @param nuevents          sum over GUIDs of the events unique by (run, event) within that GUID
 * @param guids             one entry per input file, in file order, with fileno 0, 1, ...
 */
public record SpbSummary(
        String taskID, String jobID, String inputDsName, long startProcTime, long endProcTime,
        long compressedBytes, long uncompressedBytes, long nevents, long nuevents, List<GuidInfo> guids) {

    public static SpbSummary scan(Path file, SpbLimits limits) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public static SpbSummary scan(InputStream gzipped, String source, SpbLimits limits) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }
}
