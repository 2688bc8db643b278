package org.eventindex.names;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a producer stores its SPB file: {@code {flavor}/{taskNumber}/{taskID}_{jobID}_{uuid}.ei.spb}. The flavor
 * comes from the taskID suffix ({@code .G} panda, {@code .T} tier0, {@code .X} test) and the task number is the part
 * before the dot. Every producer run has a fresh uuid, so a retried job never overwrites an earlier object.
 *
 * <p>The key is a function of (taskID, jobID, uuid), and {@link #parse} is its inverse: the supervisor uses it to
 * check that a message's URL is the key of the message's own taskID/jobID/uuid, and the consumer to check that an
 * object's SPB header names the task and job of its key.
 *
 * @throws IllegalArgumentException (constructor) naming the offending value when taskID, jobID or uuid cannot form
 *         a key
 */
public record ObjectKey(String taskID, String jobID, String uuid) {
    private static final Pattern TASK_ID = Pattern.compile("(\\d+)\\.([A-Za-z]+)");
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    /**
     * The uuid as lower-case hex: 32 digits (what our producer writes), or the dashed 8-4-4-4-12 form (the spec only
     * says "uuid", so a producer printing a standard UUID string is accepted too).
     */
    private static final Pattern UUID_HEX = Pattern.compile(
            "[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Map<String, String> FLAVORS = Map.of("G", "panda", "T", "tier0", "X", "test");
    private static final String SUFFIX = ".ei.spb";
    private static final int MAX_KEY_CHARS = 1024;

    public ObjectKey {
        requireNonNull(taskID, "taskID is null");
        requireNonNull(jobID, "jobID is null");
        requireNonNull(uuid, "uuid is null");
        Matcher m = TASK_ID.matcher(taskID);
        if (!m.matches()) {
            throw new IllegalArgumentException("taskID '" + Printable.of(taskID, 100)
                    + "' is not <taskNumber>.<G|T|X>");
        }
        if (!FLAVORS.containsKey(m.group(2))) {
            throw new IllegalArgumentException("taskID '" + taskID + "' has unknown suffix '." + m.group(2)
                    + "' (expected .G panda, .T tier0 or .X test)");
        }
        if (!JOB_ID.matcher(jobID).matches()) {
            throw new IllegalArgumentException("jobID '" + Printable.of(jobID, 100)
                    + "' may only hold letters, digits, '.', '_' and '-'");
        }
        if (!UUID_HEX.matcher(uuid).matches()) {
            throw new IllegalArgumentException("uuid '" + Printable.of(uuid, 100)
                    + "' is not 32 lower-case hex digits (optionally dashed 8-4-4-4-12)");
        }
    }

    /** @throws IllegalArgumentException naming the offending value when taskID, jobID or uuid cannot form a key */
    public static ObjectKey of(String taskID, String jobID, String uuid) {
        return new ObjectKey(taskID, jobID, uuid);
    }

    /**
     * The taskID, jobID and uuid a producer key was made of: {@code key} must be exactly what {@link #of} gives for
     * them (so the flavor and task number agree with the taskID).
     *
     * @throws IllegalArgumentException naming the key and what is wrong with it
     */
    public static ObjectKey parse(String key) {
        requireNonNull(key, "key is null");
        String shown = Printable.of(key, 200);
        String[] parts = key.length() > MAX_KEY_CHARS ? new String[0] : key.split("/", -1);
        if (parts.length != 3 || !parts[2].endsWith(SUFFIX)) {
            throw new IllegalArgumentException("object key '" + shown
                    + "' is not a producer key {flavor}/{taskNumber}/{taskID}_{jobID}_{uuid}" + SUFFIX);
        }
        String name = parts[2].substring(0, parts[2].length() - SUFFIX.length());
        int firstUnderscore = name.indexOf('_');
        int lastUnderscore = name.lastIndexOf('_');
        if (firstUnderscore < 0 || lastUnderscore <= firstUnderscore) {
            throw new IllegalArgumentException("object key '" + shown
                    + "' does not name {taskID}_{jobID}_{uuid}" + SUFFIX);
        }
        ObjectKey k;
        try {
            k = new ObjectKey(name.substring(0, firstUnderscore), name.substring(firstUnderscore + 1, lastUnderscore),
                    name.substring(lastUnderscore + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("object key '" + shown + "': " + e.getMessage(), e);
        }
        if (!k.key().equals(key)) {
            throw new IllegalArgumentException("object key '" + shown + "' is not in the folder of its taskID: "
                    + "expected " + k.key());
        }
        return k;
    }

    /** {@code panda}, {@code tier0} or {@code test}, from the taskID suffix. */
    public String flavor() {
        return FLAVORS.get(taskID.substring(taskID.indexOf('.') + 1));
    }

    /** The taskID before its dot. */
    public String taskNumber() {
        return taskID.substring(0, taskID.indexOf('.'));
    }

    /** {@code {flavor}/{taskNumber}/{taskID}_{jobID}_{uuid}.ei.spb} */
    public String key() {
        return flavor() + "/" + taskNumber() + "/" + taskID + "_" + jobID + "_" + uuid + SUFFIX;
    }

    @Override
    public String toString() {
        return key();
    }
}
