package org.eventindex.supervisor;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.eventindex.message.FormatVersion;

import java.util.ArrayList;
import java.util.List;

/**
 * Operator -> supervisor control queue: forget a dataset for good and have its objects deleted by the cleanup (the
 * first step of {@code supervisor delete-dataset}; the command then deletes its HDFS file and Kudu rows and says so
 * with a second request naming the steps {@code finished}).
 * {@code {"type": "delete", "dataset": "<name>", "reason": "...", "where": {...}}}, then
 * {@code {"type": "delete", "dataset": "<name>", "finished": ["HDFS_FILE", "KUDU_ROWS"]}}. Refused with
 * {@code WRONG_STATE} while a consumer may be loading the dataset (SIGNAL_PLANNED, SIGNALLED); a dataset deleted
 * before is answered OK again. The tombstone keeps the steps not reported finished and the command that finishes
 * them ({@link DeletedDataset#stepsLeft()}, decision 0058).
 *
 * @param reason   why, for the journal (optional)
 * @param where    where the command deletes the HDFS file and Kudu rows, for the command that finishes an
 *                 interrupted delete (optional: without it the supervisor tracks no step of its own)
 * @param finished the steps the command has done ({@link Step} names); null or empty in the first request
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DeleteCommand(@JsonProperty("type") String type, @JsonProperty("dataset") String dataset,
                            @JsonProperty("reason") String reason, @JsonProperty("where") Where where,
                            @JsonProperty("finished") List<String> finished) {
    public static final String TYPE = "delete";
    /**
     * The format version of delete requests this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }


    /** The steps of {@code delete-dataset} done outside the supervisor, in order. */
    public enum Step {
        /** The dataset's consolidated file (and temp files) under the consumers' HDFS root. */
        HDFS_FILE,
        /** Its rows in the Kudu tables. */
        KUDU_ROWS
    }

    public DeleteCommand {
        finished = finished == null ? List.of() : List.copyOf(finished);
    }

    /**
     * Where {@code delete-dataset} deletes, as given on its command line (no login, no secret path).
     *
     * @param brokers       the {@code --brokers} it sent through
     * @param hadoopConfDir its {@code --hadoop-conf-dir}, or null
     */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record Where(@JsonProperty("brokers") String brokers, @JsonProperty("hdfsUri") String hdfsUri,
                        @JsonProperty("hdfsRoot") String hdfsRoot, @JsonProperty("kuduMasters") String kuduMasters,
                        @JsonProperty("kuduPrefix") String kuduPrefix,
                        @JsonProperty("hadoopConfDir") String hadoopConfDir) {
        /** Longest value kept of each field (a request is the operator's, but the journal keeps it). */
        static final int MAX_FIELD = 1000;

        /**
         * The command that finishes the delete of {@code dataset}: the same {@code delete-dataset} with {@code --yes};
         * the broker login, TLS and Kerberos options are the operator's to add (never recorded).
         */
        public String command(String dataset) {
            List<String> args = new ArrayList<>(List.of("eventindex", "supervisor", "delete-dataset", "--brokers",
                    brokers, "--dataset", dataset, "--hdfs-uri", hdfsUri, "--hdfs-root", hdfsRoot, "--kudu-masters",
                    kuduMasters));
            if (kuduPrefix != null && !kuduPrefix.isEmpty()) {
                args.addAll(List.of("--kudu-prefix", kuduPrefix));
            }
            if (hadoopConfDir != null && !hadoopConfDir.isEmpty()) {
                args.addAll(List.of("--hadoop-conf-dir", hadoopConfDir));
            }
            args.add("--yes");
            return String.join(" ", args.stream().map(Where::quoted).toList());
        }

        private static String quoted(String arg) {
            return arg.matches("[A-Za-z0-9_./:,@=+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
        }
    }

    /** The first request of a command that tracks no step of its own (an older {@code delete-dataset}). */
    public static DeleteCommand of(String dataset, String reason) {
        return new DeleteCommand(TYPE, dataset, reason, null, List.of());
    }

    /** The first request of {@code delete-dataset}: the supervisor's tombstone, with the steps the command will do. */
    public static DeleteCommand start(String dataset, String reason, Where where) {
        return new DeleteCommand(TYPE, dataset, reason, where, List.of());
    }

    /** The request that tells the supervisor which of the command's steps are done. */
    public static DeleteCommand finished(String dataset, List<Step> steps) {
        return new DeleteCommand(TYPE, dataset, null, null, steps.stream().map(Step::name).toList());
    }
}
