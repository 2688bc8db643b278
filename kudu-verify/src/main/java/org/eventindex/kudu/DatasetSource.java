package org.eventindex.kudu;

import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * A consolidated dataset file (Parquet, as the consumer writes it) to load, opened only when a load actually needs it;
 * or, {@link #fedBy fed}, its events as the file is being written.
 *
 * @param location  recorded in DATASETS {@code hdfs_path} and named in errors, e.g.
 *                  {@code hdfs://nn:8020/ei/c/d.parquet}
 * @param inputFile random access to the file (Parquet reads its footer first)
 * @param feed      when not null, the load takes the events from it rather than from the file, which it does not
 *                  open
 */
public record DatasetSource(String location, InputFileOpener inputFile, EventFeed feed) {

    /** Random access to the file. */
    @FunctionalInterface
    public interface InputFileOpener {
        org.apache.parquet.io.InputFile open() throws IOException;
    }

    public DatasetSource {
        requireNonNull(location, "location is null");
        requireNonNull(inputFile, "inputFile is null");
    }

    /** The file at {@code location}, read by the load. */
    public DatasetSource(String location, InputFileOpener inputFile) {
        this(location, inputFile, null);
    }

    /**
     * This file, its events taken from {@code feed} while it is written (the consumer's load overlapping its merge).
     */
    public DatasetSource fedBy(EventFeed feed) {
        return new DatasetSource(location, inputFile, requireNonNull(feed, "feed is null"));
    }

    /** A file in a Hadoop file system (HDFS in production); the location is its fully qualified URI. */
    public static DatasetSource hadoop(FileSystem fs, org.apache.hadoop.fs.Path path) {
        requireNonNull(fs, "fs is null");
        requireNonNull(path, "path is null");
        org.apache.hadoop.fs.Path qualified = fs.makeQualified(path);
        return new DatasetSource(qualified.toString(),
                () -> org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(qualified, fs.getConf()));
    }

    /** A local file. */
    public static DatasetSource local(Path file) {
        requireNonNull(file, "file is null");
        Path absolute = file.toAbsolutePath();
        return new DatasetSource(absolute.toUri().toString(), () -> new org.apache.parquet.io.LocalInputFile(absolute));
    }
}
