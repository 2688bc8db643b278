package org.eventindex.kudu;

import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * A consolidated dataset file (Parquet, or gzip SPB from earlier versions) to load, opened only when a load actually needs it.
 *
 * @param location recorded in DATASETS {@code hdfs_path} and named in errors, e.g. {@code hdfs://nn:8020/ei/c/d.spb}
 * @param opener    opens a fresh stream over the raw (compressed) bytes; the loader closes it
 * @param inputFile random access to the file, for Parquet files ({@code .parquet}); null when not available
 */
public record DatasetSource(String location, Opener opener, InputFileOpener inputFile) {

    /** Opens the raw bytes of the file. */
    @FunctionalInterface
    public interface Opener {
        InputStream open() throws IOException;
    }

    /** Random access to the file (Parquet reads its footer first). */
    @FunctionalInterface
    public interface InputFileOpener {
        org.apache.parquet.io.InputFile open() throws IOException;
    }

    public DatasetSource {
        requireNonNull(location, "location is null");
        requireNonNull(opener, "opener is null");
    }

    /** A stream-only source (SPB files). */
    public DatasetSource(String location, Opener opener) {
        this(location, opener, null);
    }

    /** True for a Parquet consolidated file (by its name), false for an SPB one. */
    public boolean isParquet() {
        return location.endsWith(org.eventindex.consolidated.ConsolidatedSchema.SUFFIX);
    }

    /** A file in a Hadoop file system (HDFS in production); the location is its fully qualified URI. */
    public static DatasetSource hadoop(FileSystem fs, org.apache.hadoop.fs.Path path) {
        requireNonNull(fs, "fs is null");
        requireNonNull(path, "path is null");
        org.apache.hadoop.fs.Path qualified = fs.makeQualified(path);
        return new DatasetSource(qualified.toString(), () -> fs.open(qualified),
                () -> org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(qualified, fs.getConf()));
    }

    /** A local file. */
    public static DatasetSource local(Path file) {
        requireNonNull(file, "file is null");
        Path absolute = file.toAbsolutePath();
        return new DatasetSource(absolute.toUri().toString(), () -> Files.newInputStream(absolute),
                () -> new org.apache.parquet.io.LocalInputFile(absolute));
    }
}
