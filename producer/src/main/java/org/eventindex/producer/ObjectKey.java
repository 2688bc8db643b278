package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a producer stores its SPB file: {@code {flavor}/{taskNumber}/{taskID}_{jobID}_{uuid}.ei.spb}. The flavor
 * comes from the taskID suffix ({@code .G} panda, {@code .T} tier0, {@code .X} test) and the task number is the part
 * before the dot. Every producer run has a fresh uuid, so a retried job never overwrites an earlier object.
 */
public record ObjectKey(String flavor, String taskNumber, String key) {
    private static final Pattern TASK_ID = Pattern.compile("(\\d+)\\.([A-Za-z]+)");
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern UUID_HEX = Pattern.compile("[0-9a-f]{32}");
    private static final Map<String, String> FLAVORS = Map.of("G", "panda", "T", "tier0", "X", "test");

    public ObjectKey {
        requireNonNull(flavor, "flavor is null");
        requireNonNull(taskNumber, "taskNumber is null");
        requireNonNull(key, "key is null");
    }

    /** @throws IllegalArgumentException naming the offending value when taskID, jobID or uuid cannot form a key */
    public static ObjectKey of(String taskID, String jobID, String uuid) {
        requireNonNull(taskID, "taskID is null");
        requireNonNull(jobID, "jobID is null");
        requireNonNull(uuid, "uuid is null");
        Matcher m = TASK_ID.matcher(taskID);
        if (!m.matches()) {
            throw new IllegalArgumentException("taskID '" + taskID + "' is not <taskNumber>.<G|T|X>");
        }
        String flavor = FLAVORS.get(m.group(2));
        if (flavor == null) {
            throw new IllegalArgumentException("taskID '" + taskID + "' has unknown suffix '." + m.group(2)
                    + "' (expected .G panda, .T tier0 or .X test)");
        }
        if (!JOB_ID.matcher(jobID).matches()) {
            throw new IllegalArgumentException("jobID '" + jobID + "' may only hold letters, digits, '.', '_' and '-'");
        }
        if (!UUID_HEX.matcher(uuid).matches()) {
            throw new IllegalArgumentException("uuid '" + uuid + "' is not 32 lower-case hex digits");
        }
        String taskNumber = m.group(1);
        return new ObjectKey(flavor, taskNumber, flavor + "/" + taskNumber + "/" + taskID + "_" + jobID + "_" + uuid
                + ".ei.spb");
    }

    @Override
    public String toString() {
        return key;
    }
}
