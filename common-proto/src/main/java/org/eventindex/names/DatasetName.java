package org.eventindex.names;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * An ATLAS dataset name {@code project.runNumber.stream.prodStep.dataType.version}, optionally followed by a task
 * output suffix {@code _tidNNNNNNNN_NN} or {@code _subNNNNNNNNNN}; e.g.
 * {@code data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00}.
 * <p>
 * Names become HDFS paths and Kudu keys, so validation is strict and happens in the constructor too: exactly six
 * non-empty fields of {@code [A-Za-z0-9_-]} (no '/', no '..', no control characters can pass), at most 255
 * characters. The run field must be in the experiment's canonical form, so that {@link #toString()} gives back
 * exactly the parsed text: zero-padded to 8 digits for {@code data*} projects, to 6 digits (the dataset/channel
 * number) for all others ({@code mc*}, {@code valid*}...).
 *
 * @param runNumber the run (or, for simulation, the dataset/channel number) as an int
 * @param version   the AMI tag chain without the suffix, e.g. {@code f838_m1824}
 * @param suffix    {@code _tid...}/{@code _sub...} or empty
 */
public record DatasetName(String project, int runNumber, String stream, String prodStep, String dataType,
                          String version, String suffix) {

    /** Longest accepted full name (the DDM limit). */
    public static final int MAX_LENGTH = 255;

    private static final int FIELDS = 6;
    private static final Pattern SUFFIX = Pattern.compile("_tid[0-9]{8}_[0-9]{2}|_sub[0-9]{10}");
    private static final Pattern VERSION_WITH_SUFFIX = Pattern.compile("(.+?)(_tid[0-9]{8}_[0-9]{2}|_sub[0-9]{10})");
    private static final String[] FIELD_NAMES = {"project", "runNumber", "stream", "prodStep", "dataType", "version"};

    /** @throws IllegalArgumentException naming the parts and what is wrong */
    public DatasetName {
        requireNonNull(project, "project is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(prodStep, "prodStep is null");
        requireNonNull(dataType, "dataType is null");
        requireNonNull(version, "version is null");
        requireNonNull(suffix, "suffix is null");
        String shown = project + "." + runNumber + "." + stream + "." + prodStep + "." + dataType + "." + version
                + suffix;
        checkField(shown, "project", project);
        checkField(shown, "stream", stream);
        checkField(shown, "prodStep", prodStep);
        checkField(shown, "dataType", dataType);
        checkField(shown, "version", version);
        if (runNumber < 0) {
            throw invalid(shown, "run number " + runNumber + " is negative");
        }
        if (!suffix.isEmpty() && !SUFFIX.matcher(suffix).matches()) {
            throw invalid(shown, "suffix '" + Printable.of(suffix, 40)
                    + "' is neither _tidNNNNNNNN_NN nor _subNNNNNNNNNN");
        }
        // Otherwise parse(toString()) would split the version differently and the record would not round-trip.
        if (VERSION_WITH_SUFFIX.matcher(version).matches()) {
            throw invalid(shown, "version '" + version + "' already ends with a task suffix");
        }
        int length = shown.length() - Integer.toString(runNumber).length() + runText(project, runNumber).length();
        if (length > MAX_LENGTH) {
            throw invalid(shown, "name is " + length + " characters long, the limit is " + MAX_LENGTH);
        }
    }

    /**
     * @throws IllegalArgumentException naming the input and what is wrong (field count, empty field, run not a
     *                                  number, characters outside {@code [A-Za-z0-9_.-]}, too long)
     */
    public static DatasetName parse(String name) {
        if (name == null) {
            throw new IllegalArgumentException("dataset name is missing (null)");
        }
        if (name.length() > MAX_LENGTH) {
            throw invalid(name, "name is " + name.length() + " characters long, the limit is " + MAX_LENGTH);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c != '.' && !allowed(c)) {
                throw invalid(name, "character '" + Printable.of(c) + "' at position " + i
                        + " is not allowed (only A-Z a-z 0-9 _ - and '.' between fields)");
            }
        }
        String[] f = name.split("\\.", -1);
        if (f.length != FIELDS) {
            throw invalid(name, "it has " + f.length + " dot-separated fields, expected " + FIELDS
                    + " (project.runNumber.stream.prodStep.dataType.version)");
        }
        for (int i = 0; i < FIELDS; i++) {
            if (f[i].isEmpty()) {
                throw invalid(name, "field " + (i + 1) + " (" + FIELD_NAMES[i] + ") is empty");
            }
        }
        int run = parseRun(name, f[0], f[1]);
        String version = f[5];
        String suffix = "";
        Matcher m = VERSION_WITH_SUFFIX.matcher(version);
        if (m.matches()) {
            version = m.group(1);
            suffix = m.group(2);
        } else if (SUFFIX.matcher(version).matches()) {
            throw invalid(name, "version is only a task suffix ('" + version + "'), the AMI tags are missing");
        }
        return new DatasetName(f[0], run, f[2], f[3], f[4], version, suffix);
    }

    /**
     * The name held by a DATASETS key: its columns, the version column carrying the {@code _tid}/{@code _sub} suffix
     * (as the loader writes it).
     *
     * @throws IllegalArgumentException as the constructor does
     */
    public static DatasetName fromKey(String project, int runNumber, String stream, String prodStep, String dataType,
                                      String versionWithSuffix) {
        requireNonNull(versionWithSuffix, "versionWithSuffix is null");
        Matcher m = VERSION_WITH_SUFFIX.matcher(versionWithSuffix);
        return m.matches()
                ? new DatasetName(project, runNumber, stream, prodStep, dataType, m.group(1), m.group(2))
                : new DatasetName(project, runNumber, stream, prodStep, dataType, versionWithSuffix, "");
    }

    /** The container: the name without the task suffix. This names the HDFS directory. */
    public String container() {
        return project + "." + runText(project, runNumber) + "." + stream + "." + prodStep + "." + dataType + "."
                + version;
    }

    /** The full name, as parsed. */
    @Override
    public String toString() {
        return container() + suffix;
    }

    /** The canonical run field: 8 digits for data projects, 6 for simulation and the rest. */
    private static String runText(String project, int run) {
        String digits = Integer.toString(run);
        int width = project.startsWith("data") ? 8 : 6;
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    private static int parseRun(String name, String project, String field) {
        for (int i = 0; i < field.length(); i++) {
            if (field.charAt(i) < '0' || field.charAt(i) > '9') {
                throw invalid(name, "run number field '" + field + "' is not a decimal number");
            }
        }
        long value = field.length() > 10 ? Long.MAX_VALUE : Long.parseLong(field);
        if (value > Integer.MAX_VALUE) {
            throw invalid(name, "run number field '" + field + "' is too large");
        }
        int run = (int) value;
        String canonical = runText(project, run);
        if (!canonical.equals(field)) {
            throw invalid(name, "run number field '" + field + "' is not in canonical form '" + canonical
                    + "' (zero-padded to 8 digits for data projects, 6 for others)");
        }
        return run;
    }

    private static void checkField(String shown, String what, String value) {
        if (value.isEmpty()) {
            throw invalid(shown, what + " is empty");
        }
        for (int i = 0; i < value.length(); i++) {
            if (!allowed(value.charAt(i))) {
                throw invalid(shown, what + " '" + Printable.of(value, 300) + "' has character '"
                        + Printable.of(value.charAt(i)) + "' at position " + i
                        + " (only A-Z a-z 0-9 _ - are allowed)");
            }
        }
    }

    private static boolean allowed(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    }

    private static IllegalArgumentException invalid(String name, String reason) {
        return new IllegalArgumentException("invalid dataset name '" + Printable.of(name, 300) + "': "
                + reason);
    }
}
