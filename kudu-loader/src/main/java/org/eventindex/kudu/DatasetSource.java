package org.eventindex.kudu;

import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * A consolidated dataset file (gzip SPB) to load, opened only when a load actually needs it.
 *
 * @param location recorded in DATASETS {@code hdfs_path} and named in errors, e.g. {@code hdfs://nn:8020/ei/c/d.spb}
 * @param opener   opens a fresh stream over the raw (compressed) bytes; the loader closes it
 */
public record DatasetSource(String location, Opener opener) {

    /** Opens the raw bytes of the file. */
    @FunctionalInterface
    public interface Opener {
        InputStream open() throws IOException;
    }

    public DatasetSource {
        requireNonNull(location, "location is null");
        requireNonNull(opener, "opener is null");
    }

    /** A file in a Hadoop file system (HDFS in production); the location is its fully qualified URI. */
    public static DatasetSource hadoop(FileSystem fs, org.apache.hadoop.fs.Path path) {
        requireNonNull(fs, "fs is null");
        requireNonNull(path, "path is null");
        org.apache.hadoop.fs.Path qualified = fs.makeQualified(path);
        return new DatasetSource(qualified.toString(), () -> fs.open(qualified));
    }

    /** A local file. */
    public static DatasetSource local(Path file) {
        requireNonNull(file, "file is null");
        Path absolute = file.toAbsolutePath();
        return new DatasetSource(absolute.toUri().toString(), () -> Files.newInputStream(absolute));
    }
}
