package org.eventindex.lookup;

import org.eventindex.names.DatasetName;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Which datasets and file types a lookup reports. Empty / null fields select everything.
 *
 * @param streamTypes  file types to report ({@code StreamAOD}, {@code StreamRAW}...), exact, case-sensitive
 * @param project      the dataset's project, exact (e.g. {@code data17_13TeV})
 * @param amiTag       glob over the dataset version without task suffix (e.g. {@code f838_*})
 * @param datasetGlob  glob over the full dataset name (e.g. {@code *.physics_Main.*.AOD.*}); {@code *} matches any
 *                     characters, {@code ?} one
 */
public record LookupFilter(Set<String> streamTypes, String project, String amiTag, String datasetGlob) {
    private static final LookupFilter ALL = new LookupFilter(Set.of(), null, null, null);

    public LookupFilter {
        streamTypes = Set.copyOf(requireNonNull(streamTypes, "streamTypes is null"));
        glob(amiTag);
        glob(datasetGlob);
    }

    public static LookupFilter all() {
        return ALL;
    }

    /** True when a dataset with these name parts is selected. */
    boolean acceptsDataset(LoadedDataset d) {
        return (project == null || project.equals(d.project()))
                && (amiTag == null || glob(amiTag).matcher(d.versionWithoutSuffix()).matches())
                && (datasetGlob == null || glob(datasetGlob).matcher(d.name()).matches());
    }

    /** True when the dataset of this full name is selected (a name that does not parse is not). */
    boolean acceptsName(String dataset) {
        try {
            DatasetName n = DatasetName.parse(dataset);
            return (project == null || project.equals(n.project()))
                    && (amiTag == null || glob(amiTag).matcher(n.version()).matches())
                    && (datasetGlob == null || glob(datasetGlob).matcher(dataset).matches());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Which of these filters exclude a dataset in which an event was found with these file types, in the words of
     * the options and query parameters ({@code project=data18_13TeV (its project: data17_13TeV)}).
     */
    String excludedBy(String dataset, Set<String> types) {
        DatasetName n = DatasetName.parse(dataset);
        List<String> by = new ArrayList<>();
        if (project != null && !project.equals(n.project())) {
            by.add("project=" + project + " (its project: " + n.project() + ")");
        }
        if (amiTag != null && !glob(amiTag).matcher(n.version()).matches()) {
            by.add("ami-tag=" + amiTag + " (its AMI tags: " + n.version() + ")");
        }
        if (datasetGlob != null && !glob(datasetGlob).matcher(dataset).matches()) {
            by.add("dataset=" + datasetGlob);
        }
        if (by.isEmpty() && types.stream().noneMatch(this::acceptsType)) {
            by.add("stream-type=" + String.join(",", streamTypes));
        }
        return String.join(" and ", by);
    }

    boolean acceptsType(String type) {
        return streamTypes.isEmpty() || streamTypes.contains(type);
    }

    /** A glob as a regular expression; null for a null glob. */
    static Pattern glob(String glob) {
        if (glob == null) {
            return null;
        }
        if (glob.isEmpty() || glob.length() > 255) {
            throw new IllegalArgumentException("pattern must have 1..255 characters: '" + glob + "'");
        }
        StringBuilder re = new StringBuilder();
        for (char c : glob.toCharArray()) {
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString(), 0);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "types=%s project=%s amiTag=%s dataset=%s", streamTypes, project, amiTag,
                datasetGlob);
    }
}
