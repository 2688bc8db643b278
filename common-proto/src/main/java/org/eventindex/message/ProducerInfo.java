package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code data} part of a producer control message: what one producer stored in one object.
 * Field names are the experiment's; they are also the object's user metadata (all but {@code guids}).
 *
 * @param size      bytes of the SPB file (gzip), i.e. of the object
 * @param usize     uncompressed bytes of the SPB stream
 * @param url       where the object is: {@code s3://host:port/bucket/key}
 */
public record ProducerInfo(
        @JsonProperty("size") long size,
        @JsonProperty("usize") long usize,
        @JsonProperty("version") String version,
        @JsonProperty("taskID") String taskID,
        @JsonProperty("jobID") String jobID,
        @JsonProperty("startProcTime") long startProcTime,
        @JsonProperty("endProcTime") long endProcTime,
        @JsonProperty("inputDsName") String inputDsName,
        @JsonProperty("nevents") long nevents,
        @JsonProperty("nuevents") long nuevents,
        @JsonProperty("nfiles") int nfiles,
        @JsonProperty("uuid") String uuid,
        @JsonProperty("timestamp") long timestamp,
        @JsonProperty("url") String url,
        @JsonProperty("guids") List<GuidInfo> guids) {

    /** The object user metadata: every info field except {@code guids}, as strings (S3 metadata is text). */
    public Map<String, String> objectMetadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("size", Long.toString(size));
        m.put("usize", Long.toString(usize));
        m.put("version", String.valueOf(version));
        m.put("taskID", taskID);
        m.put("jobID", jobID);
        m.put("startProcTime", Long.toString(startProcTime));
        m.put("endProcTime", Long.toString(endProcTime));
        m.put("inputDsName", inputDsName);
        m.put("nevents", Long.toString(nevents));
        m.put("nuevents", Long.toString(nuevents));
        m.put("nfiles", Integer.toString(nfiles));
        m.put("uuid", uuid);
        m.put("timestamp", Long.toString(timestamp));
        m.put("url", url);
        return m;
    }

}
