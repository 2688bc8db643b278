package org.eventindex.sql;

import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * Spark SQL over the EventIndex Kudu tables under their Impala names: a local Spark session, and
 * {@code deploy/impala/create-tables.sql} run through {@link ImpalaToSpark} in it, which registers database
 * {@value #DATABASE} with the six Kudu tables (kudu-spark data source tables) and the {@code loaded_datasets} view,
 * exactly as the file defines them for Impala.
 */
public final class EventIndexSql {
    /** The database of create-tables.sql. */
    public static final String DATABASE = "eventindex";
    /** Class path resources: the files of deploy/impala, copied into the jar by the build. */
    public static final String CREATE_TABLES = "eventindex/impala/create-tables.sql";
    public static final String QUERIES = "eventindex/impala/queries.sql";

    private EventIndexSql() {
    }

    /**
     * A local Spark session ({@code local[threads]}, no UI, UTC, java.time values), or the session already running in
     * this JVM. Managed tables of the in-memory catalog (the Kudu tables registered here) keep an empty directory
     * under {@code warehouseDir}, which must be new for each session.
     */
    public static SparkSession startSpark(Path warehouseDir, int threads) {
        requireNonNull(warehouseDir, "warehouseDir is null");
        return SparkSession.builder()
                .master("local[" + threads + "]")
                .appName("eventindex-sql")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.catalogImplementation", "in-memory")
                .config("spark.sql.warehouse.dir", warehouseDir.toAbsolutePath().toUri().toString())
                .config("spark.sql.shuffle.partitions", Integer.toString(Math.max(2, 2 * threads)))
                // Impala shows Kudu UNIXTIME_MICROS as UTC TIMESTAMPs
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.datetime.java8API.enabled", "true")
                .getOrCreate();
    }

    /** The text of a class path resource (UTF-8). */
    public static String resource(String name) {
        try (InputStream in = EventIndexSql.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("class path resource " + name + " is missing (build the sql module)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read class path resource " + name, e);
        }
    }

    /** The statements of a documented file, e.g. {@link #QUERIES}. */
    public static List<StatementSplitter.Statement> statements(String resource) {
        return StatementSplitter.split(resource(resource));
    }

    /**
     * Runs create-tables.sql in {@code spark} for the tables of {@code masters} with table name prefix
     * {@code prefix}. A statement that fails (a Kudu table missing on an older cluster) is reported to
     * {@code problems} and the others still run.
     *
     * @return the registered names, e.g. {@code eventindex.events}
     */
    public static List<String> register(SparkSession spark, String masters, String prefix,
                                        Consumer<String> problems) {
        requireNonNull(spark, "spark is null");
        requireNonNull(masters, "masters is null");
        requireNonNull(prefix, "prefix is null");
        requireNonNull(problems, "problems is null");
        ImpalaToSpark translation = new ImpalaToSpark(Map.of("prefix", prefix, "masters", masters), masters);
        List<String> registered = new ArrayList<>();
        for (StatementSplitter.Statement s : statements(CREATE_TABLES)) {
            String sql = translation.translate(s.sql());
            String name = objectName(sql);
            try {
                spark.sql(sql);
                if (name != null) {
                    registered.add(name);
                }
            } catch (Exception e) {
                // AnalysisException is checked in Java but thrown undeclared by Scala code
                problems.accept("could not register " + (name == null ? "database " + DATABASE : name) + ": "
                        + Errors.describe(e));
            }
        }
        return registered;
    }

    /** {@code eventindex.x} of a CREATE TABLE/VIEW statement, null for others. */
    private static String objectName(String sql) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "(?is)^CREATE\\s+(?:TABLE|VIEW)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?([A-Za-z0-9_.]+)").matcher(sql);
        return m.find() ? m.group(1) : null;
    }
}
