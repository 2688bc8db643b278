package org.eventindex.ops;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Instant;
import java.util.Objects;

/**
 * A dependency's last check, as {@code /ready} shows it.
 *
 * @param name      e.g. {@code hdfs}, {@code kudu}
 * @param up        whether it answered
 * @param error     why not (null when up)
 * @param checkedAt when the verdict was reached; null before the first check
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DependencyStatus(@JsonProperty("name") String name, @JsonProperty("up") boolean up,
                               @JsonProperty("error") String error,
                               @JsonProperty("checkedAt") @JsonSerialize(using = ToStringSerializer.class)
                               Instant checkedAt) {
    public DependencyStatus {
        Objects.requireNonNull(name, "name is null");
    }
}
