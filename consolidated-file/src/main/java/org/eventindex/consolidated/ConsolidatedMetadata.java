package org.eventindex.consolidated;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.eventindex.message.Json;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the footer of a consolidated file says about its content (Parquet key-value metadata, see
 * {@link ConsolidatedSchema}{@code .META_*}). Structured values are JSON.
 *
 * @param dataset          the dataset
 * @param signalId         the consumer signal the file was built for
 * @param header           the consolidated Header (start time, provenance and trigger flags of the first object)
 * @param objects          URLs of the objects read, in signal order
 * @param files            the input files (GUIDs) taken, in signal order, each with its BeginGUID/EndGUID fields and
 *                         the indexes of its trigger menus in {@code menus}
 * @param menus            the distinct trigger menus of the files, each once ({@link TriggerMenus})
 * @param events           rows in the file
 * @param runs             distinct run numbers, ascending
 * @param simulationEvents rows with {@code is_simulation}
 * @param endProcTime      largest EndGUID endProcTime taken
 * @param rowsSha256       hex SHA-256 over the rows in file order (see {@link RowDigest})
 */
public record ConsolidatedMetadata(String dataset, String signalId, HeaderInfo header, List<String> objects,
                                   List<FileInfo> files, List<MenuInfo> menus, long events, List<Long> runs,
                                   long simulationEvents,
                                   long endProcTime, String rowsSha256) {
    /** The project's one JSON mapping (fields a newer writer adds to the footer are ignored when read). */
    private static final ObjectMapper JSON = Json.mapper();

    public ConsolidatedMetadata {
        Objects.requireNonNull(dataset, "dataset is null");
        Objects.requireNonNull(signalId, "signalId is null");
        Objects.requireNonNull(header, "header is null");
        objects = List.copyOf(objects);
        files = List.copyOf(files);
        menus = List.copyOf(menus);
        for (FileInfo f : files) {
            for (int m : f.menus()) {
                if (m < 0 || m >= menus.size()) {
                    throw new IllegalArgumentException("file " + f.guid() + " refers to trigger menu " + m + " of "
                            + menus.size());
                }
            }
        }
        runs = List.copyOf(runs);
        Objects.requireNonNull(rowsSha256, "rowsSha256 is null");
    }

    /** The consolidated Header_p1 fields. */
    public record HeaderInfo(long startProcTime, String taskID, String jobID, boolean provenanceRef,
                             boolean triggerInfo) {
    }

    /**
     * One input file: BeginGUID and EndGUID fields, its trigger menus (indexes into {@link #menus()}, in file order),
     * and the object it came from.
     */
    public record FileInfo(String guid, String object, long startProcTime, String amiTag, String trigStream,
                           String projName, long endProcTime, long nentries, List<Integer> menus) {
        public FileInfo {
            menus = List.copyOf(menus);
        }
    }

    /** A file entry of formats 1 and 2, which held its menus whole. */
    private record InlineMenusFile(String guid, String object, long startProcTime, String amiTag, String trigStream,
                                   String projName, long endProcTime, long nentries, List<MenuInfo> menus) {
    }

    /** One TriggerMenu_p1; absent optional menus are null. */
    public record MenuInfo(long smk, long l1psk, long hltpsk, String l1Menu, String l2Menu, String efMenu,
                           String hltMenu) {
    }

    /** The trigger menus of {@code file}, in its order. */
    public List<MenuInfo> menusOf(FileInfo file) {
        return file.menus().stream().map(menus::get).toList();
    }

    /** True when every row is simulated (the dataset then belongs in MCEVENTS). */
    public boolean simulation() {
        return events > 0 && simulationEvents == events;
    }

    public Map<String, String> toKeyValues() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ConsolidatedSchema.META_FORMAT, ConsolidatedSchema.FORMAT_VERSION);
        m.put(ConsolidatedSchema.META_DATASET, dataset);
        m.put(ConsolidatedSchema.META_SIGNAL_ID, signalId);
        m.put(ConsolidatedSchema.META_HEADER, json(header));
        m.put(ConsolidatedSchema.META_OBJECTS, json(objects));
        m.put(ConsolidatedSchema.META_FILES, json(files));
        m.put(ConsolidatedSchema.META_TRIGGER_MENUS, json(menus));
        m.put(ConsolidatedSchema.META_EVENTS, Long.toString(events));
        m.put(ConsolidatedSchema.META_RUNS, json(runs));
        m.put(ConsolidatedSchema.META_SIMULATION, Long.toString(simulationEvents));
        m.put(ConsolidatedSchema.META_END_PROC_TIME, Long.toString(endProcTime));
        m.put(ConsolidatedSchema.META_CHECKSUM, rowsSha256);
        return m;
    }

    /**
     * @param source names the file in errors
     * @throws IllegalArgumentException naming the file and key when the metadata is missing or malformed
     */
    public static ConsolidatedMetadata fromKeyValues(Map<String, String> m, String source) {
        String format = m.get(ConsolidatedSchema.META_FORMAT);
        boolean inlineMenus = ConsolidatedSchema.FORMAT_VERSION_2.equals(format)
                || ConsolidatedSchema.FORMAT_VERSION_1.equals(format);
        if (!ConsolidatedSchema.FORMAT_VERSION.equals(format) && !inlineMenus) {
            throw new IllegalArgumentException(source + " is not an EventIndex consolidated file: "
                    + ConsolidatedSchema.META_FORMAT + " is " + format + ", expected "
                    + ConsolidatedSchema.FORMAT_VERSION + ", " + ConsolidatedSchema.FORMAT_VERSION_2 + " or "
                    + ConsolidatedSchema.FORMAT_VERSION_1);
        }
        try {
            List<FileInfo> files;
            List<MenuInfo> menus;
            String filesJson = need(m, ConsolidatedSchema.META_FILES, source);
            if (inlineMenus) {
                TriggerMenus table = new TriggerMenus(need(m, ConsolidatedSchema.META_DATASET, source));
                files = new java.util.ArrayList<>();
                for (InlineMenusFile f : JSON.readValue(filesJson, new TypeReference<List<InlineMenusFile>>() { })) {
                    List<Integer> refs = new java.util.ArrayList<>();
                    for (MenuInfo menu : f.menus()) {
                        refs.add(table.add(menu));
                    }
                    files.add(new FileInfo(f.guid(), f.object(), f.startProcTime(), f.amiTag(), f.trigStream(),
                            f.projName(), f.endProcTime(), f.nentries(), refs));
                }
                menus = table.list();
            } else {
                files = JSON.readValue(filesJson, new TypeReference<>() { });
                menus = JSON.readValue(need(m, ConsolidatedSchema.META_TRIGGER_MENUS, source),
                        new TypeReference<>() { });
            }
            return new ConsolidatedMetadata(
                    need(m, ConsolidatedSchema.META_DATASET, source),
                    need(m, ConsolidatedSchema.META_SIGNAL_ID, source),
                    JSON.readValue(need(m, ConsolidatedSchema.META_HEADER, source), HeaderInfo.class),
                    JSON.readValue(need(m, ConsolidatedSchema.META_OBJECTS, source), new TypeReference<>() { }),
                    files, menus,
                    Long.parseLong(need(m, ConsolidatedSchema.META_EVENTS, source)),
                    JSON.readValue(need(m, ConsolidatedSchema.META_RUNS, source), new TypeReference<>() { }),
                    Long.parseLong(need(m, ConsolidatedSchema.META_SIMULATION, source)),
                    Long.parseLong(need(m, ConsolidatedSchema.META_END_PROC_TIME, source)),
                    need(m, ConsolidatedSchema.META_CHECKSUM, source));
        } catch (JsonProcessingException | NumberFormatException | TriggerMenus.LimitException e) {
            throw new IllegalArgumentException(source + ": malformed EventIndex file metadata: " + e.getMessage(), e);
        }
    }

    private static String need(Map<String, String> m, String key, String source) {
        String v = m.get(key);
        if (v == null) {
            throw new IllegalArgumentException(source + ": file metadata has no " + key);
        }
        return v;
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write file metadata as JSON: " + e.getMessage(), e);
        }
    }
}
