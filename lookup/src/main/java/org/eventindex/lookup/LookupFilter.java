package org.eventindex.lookup;

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

    boolean acceptsType(String type) {
        return streamTypes.isEmpty() || streamTypes.contains(type);
    }

    /** A glob as a regular expression; null for a null glob. */
    private static Pattern glob(String glob) {
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
