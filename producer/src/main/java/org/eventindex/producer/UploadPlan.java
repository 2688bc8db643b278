package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.ProducerMessage;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.spb.SpbSummary;

/**
 * Everything decided before anything remote is touched: the object key and URL, the object metadata and the
 * message to send. A dry run prints this and stops.
 *
 * @param bucket    null only in a dry run without {@code --s3-endpoint} and {@code --bucket}
 * @param url       null with {@code bucket} (and so is the info's url)
 * @param messageId the id of the control message; stays the same when sending is retried
 */
public record UploadPlan(ScannedFile file, String bucket, ObjectKey key, S3ObjectUrl url, ProducerInfo info,
                         Map<String, String> metadata, String messageId) {
    /** ProducerInfo.version of this producer. */
    public static final String INFO_VERSION = "1";
    /** User metadata key holding the file's SHA-256 (hex) next to the info fields. */
    public static final String SHA256_METADATA = "sha256";

    public UploadPlan {
        requireNonNull(file, "file is null");
        requireNonNull(key, "key is null");
        if ((bucket == null) != (url == null)) {
            throw new IllegalArgumentException("bucket and url go together: " + bucket + ", " + url);
        }
        requireNonNull(info, "info is null");
        metadata = Map.copyOf(requireNonNull(metadata, "metadata is null"));
        requireNonNull(messageId, "messageId is null");
    }

    /**
     * @param s3Endpoint {@code http(s)://host[:port]}; its host and port go into the object URL (null with
     *                   {@code bucket}: a dry run's plan, without URL)
     * @param uuid       this run's uuid: part of the key and of the info
     * @throws ProducerException {@link ExitCode#BAD_INPUT} when the file's taskID / jobID cannot form a key or a
     *                           metadata value cannot travel in an HTTP header
     */
    public static UploadPlan of(ScannedFile file, URI s3Endpoint, String bucket, UUID uuid, UUID messageId,
                                long nowMillis) throws ProducerException {
        requireNonNull(file, "file is null");
        if ((s3Endpoint == null) != (bucket == null)) {
            throw new IllegalArgumentException("s3Endpoint and bucket go together: " + s3Endpoint + ", " + bucket);
        }
        SpbSummary s = file.summary();
        String uuidHex = hex(requireNonNull(uuid, "uuid is null"));
        try {
            // The supervisor and consumer refuse such a name too; refusing it here keeps the object out of S3.
            DatasetName.parse(s.inputDsName());
        } catch (IllegalArgumentException e) {
            throw new ProducerException(ExitCode.BAD_INPUT, file.path() + ": the SPB header's inputDsName is refused: "
                    + e.getMessage(), e);
        }
        ObjectKey key;
        try {
            key = ObjectKey.of(s.taskID(), s.jobID(), uuidHex);
        } catch (IllegalArgumentException e) {
            throw new ProducerException(ExitCode.BAD_INPUT, file.path() + ": " + e.getMessage(), e);
        }
        S3ObjectUrl url = s3Endpoint == null ? null
                : new S3ObjectUrl(s3Endpoint.getHost(), port(s3Endpoint), bucket, key.key());
        ProducerInfo info = new ProducerInfo(file.size(), s.uncompressedBytes(), INFO_VERSION, s.taskID(), s.jobID(),
                s.startProcTime(), s.endProcTime(), s.inputDsName(), s.nevents(), s.nuevents(), s.guids().size(),
                uuidHex, nowMillis, url == null ? null : url.toString(), s.guids());
        Map<String, String> metadata = new LinkedHashMap<>(info.objectMetadata());
        if (url == null) {
            metadata.remove("url"); // a dry run's plan: nothing is stored
        }
        metadata.put(SHA256_METADATA, file.sha256());
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (!isHeaderSafe(e.getValue())) {
                throw new ProducerException(ExitCode.BAD_INPUT, file.path() + ": " + e.getKey()
                        + " holds characters that cannot be stored as S3 object metadata (printable ASCII only)");
            }
        }
        return new UploadPlan(file, bucket, key, url, info, metadata, hex(requireNonNull(messageId, "messageId")));
    }

    /** The control message, stamped with the time it is sent. */
    public ProducerMessage message(long nowMillis) {
        return new ProducerMessage(ProducerMessage.TYPE_OBJECT_STORED, nowMillis, messageId, info);
    }

    static int port(URI endpoint) {
        if (endpoint.getPort() > 0) {
            return endpoint.getPort();
        }
        return "https".equalsIgnoreCase(endpoint.getScheme()) ? 443 : 80;
    }

    private static String hex(UUID uuid) {
        return uuid.toString().replace("-", "");
    }

    private static boolean isHeaderSafe(String value) {
        if (value == null) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }
}
