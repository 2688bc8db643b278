package org.eventindex.lookup;

/**
 * One file holding a looked-up event.
 *
 * @param key       the event asked for
 * @param guid      the file's GUID
 * @param type      the file's stream type: {@code StreamAOD}, {@code StreamESD}, {@code StreamRAW}...; the event's own
 *                  file is typed after its dataset's data type ({@code Stream} + {@code datatype})
 * @param token     the event's POOL token in that file, null when the index has none
 * @param dataset   the full name of the dataset the row belongs to
 * @param own       true for the event's own file (EVENTS {@code db/tk}), false for a provenance file
 *                  ({@code dbraw/dbesd/dbaod})
 * @param duplicate true when the row is a later copy from DUPLICATEDEVENTS (only with duplicates requested)
 */
public record LookupMatch(EventKey key, String guid, String type, String token, String dataset, boolean own,
                          boolean duplicate) {
}
