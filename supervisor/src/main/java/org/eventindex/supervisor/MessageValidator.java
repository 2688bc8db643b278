package org.eventindex.supervisor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.FormatVersion;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.ProducerMessage;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;
import org.eventindex.names.Printable;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Checks every inbound message before anything is recorded. I/O-free and stateless: the same body always gives the
 * same verdict, and every rejection names the field, dataset or object at fault.
 */
final class MessageValidator {
    private final String allowedBucket;
    private final String allowedHost;
    private final int allowedPort;

    /** Objects may be on any endpoint, in {@code allowedBucket}. */
    MessageValidator(String allowedBucket) {
        this(allowedBucket, null, -1);
    }

    /**
     * @param allowedHost when not null, object URLs must name this host (case-insensitively, as written: no name
     *                    resolution) and {@code allowedPort}
     */
    MessageValidator(String allowedBucket, String allowedHost, int allowedPort) {
        this.allowedBucket = Objects.requireNonNull(allowedBucket, "allowedBucket is null");
        this.allowedHost = allowedHost == null ? null : allowedHost.toLowerCase(Locale.ROOT);
        this.allowedPort = allowedPort;
    }

    /**
     * The validator of a running supervisor: objects in {@code bucket} and, when {@code s3Endpoint} (the cleanup's
     * {@code http[s]://host[:port]}, the scheme's default port when none is given) is not empty, on that endpoint's
     * host:port. The one place that reads the endpoint; {@link SupervisorConfig} calls it to check the key.
     *
     * @throws IllegalArgumentException when the endpoint is not {@code http[s]://host[:port]}
     */
    static MessageValidator forEndpoint(String bucket, String s3Endpoint) {
        if (s3Endpoint == null || s3Endpoint.isBlank()) {
            return new MessageValidator(bucket);
        }
        URI uri;
        try {
            uri = new URI(s3Endpoint.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("S3 endpoint '" + s3Endpoint + "' is not a URI: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null
                || !(path.isEmpty() || path.equals("/")) || uri.getRawQuery() != null || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("S3 endpoint must be http[s]://host[:port], not '" + s3Endpoint + "'");
        }
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        return new MessageValidator(bucket, uri.getHost(), port);
    }

    /** A message of the producer queue: {@code {"type": 1, "ts", "id", "data": {...}}}. */
    Inbound producer(byte[] body, String brokerMessageId) {
        JsonBody json = JsonBody.parse(body);
        if (json.root() == null) {
            return reject(RejectReason.BAD_JSON, json.problem(), brokerMessageId, null);
        }
        JsonNode root = json.root();
        String id = text(root, "id");
        String msgId = id != null ? id : brokerMessageId;
        JsonNode type = root.get("type");
        if (type == null || type.isNull()) {
            return reject(RejectReason.MISSING_FIELD, "field 'type' is missing", msgId, null);
        }
        if (!type.isIntegralNumber() || type.asInt() != ProducerMessage.TYPE_OBJECT_STORED) {
            return reject(RejectReason.WRONG_TYPE, "type is " + type + ", producer messages have type "
                    + ProducerMessage.TYPE_OBJECT_STORED, msgId, null);
        }
        if (id == null) {
            return reject(RejectReason.MISSING_FIELD, "field 'id' is missing or empty", msgId, null);
        }
        JsonNode data = root.get("data");
        if (data == null || !data.isObject()) {
            return reject(RejectReason.MISSING_FIELD, "field 'data' is missing or not an object", msgId, null);
        }
        String dataset = text(data, "inputDsName");
        if (dataset == null) {
            return reject(RejectReason.MISSING_FIELD, "field 'data.inputDsName' is missing or empty", msgId, null);
        }
        DatasetName name;
        try {
            name = DatasetName.parse(dataset);
        } catch (IllegalArgumentException e) {
            return reject(RejectReason.INVALID_DATASET_NAME, "dataset name '" + dataset + "' is invalid: "
                    + e.getMessage(), msgId, null);
        }
        String url = text(data, "url");
        if (url == null) {
            return reject(RejectReason.MISSING_FIELD, "field 'data.url' is missing or empty", msgId, dataset);
        }
        S3ObjectUrl parsed;
        try {
            parsed = S3ObjectUrl.parse(url);
        } catch (IllegalArgumentException e) {
            return reject(RejectReason.BAD_URL, e.getMessage(), msgId, dataset);
        }
        if (!parsed.bucket().equals(allowedBucket)) {
            return reject(RejectReason.WRONG_BUCKET, "object " + url + " is in bucket '" + parsed.bucket()
                    + "', not in the configured bucket '" + allowedBucket + "'", msgId, dataset);
        }
        if (allowedHost != null
                && (!parsed.host().toLowerCase(Locale.ROOT).equals(allowedHost) || parsed.port() != allowedPort)) {
            return reject(RejectReason.WRONG_ENDPOINT, "object " + url + " is not on the configured S3 endpoint "
                    + allowedHost + ":" + allowedPort, msgId, dataset);
        }
        Rejection bad = checkKey(data, parsed, msgId, dataset);
        if (bad != null) {
            return new Inbound.Rejected(bad);
        }
        String where = "object " + url;
        bad = checkCount(data, "size", "data.size", where, msgId, dataset);
        if (bad != null) {
            return new Inbound.Rejected(bad);
        }
        JsonNode guids = data.get("guids");
        if (guids == null || !guids.isArray() || guids.isEmpty()) {
            return reject(RejectReason.MISSING_FIELD, where + ": field 'data.guids' is missing or empty", msgId,
                    dataset);
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < guids.size(); i++) {
            JsonNode g = guids.get(i);
            String path = "data.guids[" + i + "]";
            if (!g.isObject()) {
                return reject(RejectReason.BAD_JSON, where + ": " + path + " is not an object", msgId, dataset);
            }
            String guid = text(g, "guid");
            if (guid == null) {
                return reject(RejectReason.MISSING_FIELD, where + ": field '" + path + ".guid' is missing or empty",
                        msgId, dataset);
            }
            bad = checkCount(g, "fileno", path + ".fileno", where, msgId, dataset);
            if (bad == null) {
                bad = checkCount(g, "nevents", path + ".nevents", where + " GUID " + guid, msgId, dataset);
            }
            if (bad != null) {
                return new Inbound.Rejected(bad);
            }
            if (!seen.add(guid)) {
                return reject(RejectReason.DUPLICATE_GUID, where + " lists GUID " + guid + " twice", msgId, dataset);
            }
        }
        ProducerMessage message;
        try {
            message = Json.mapper().treeToValue(root, ProducerMessage.class);
        } catch (JsonProcessingException e) {
            return reject(RejectReason.BAD_JSON, where + ": " + original(e), msgId, dataset);
        }
        ProducerInfo info = message.data();
        for (GuidInfo g : info.guids()) {
            if (g == null) {
                return reject(RejectReason.BAD_JSON, where + ": a GUID entry is null", msgId, dataset);
            }
        }
        return new Inbound.ObjectStored(id, name, info);
    }

    /** A message body parsed once: the JSON object, or why it is not one. */
    private record JsonBody(JsonNode root, String problem) {
        static JsonBody parse(byte[] body) {
            try {
                JsonNode root = Json.tree(body);
                return root != null && root.isObject() ? new JsonBody(root, null)
                        : new JsonBody(null, "body is not a JSON object");
            } catch (IOException e) {
                return new JsonBody(null, "body is not JSON: " + original(e));
            }
        }
    }

    /** A message of the control queue: a manifest, a consumer report or an operator command. */
    Inbound control(byte[] body, String brokerMessageId) {
        JsonBody json = JsonBody.parse(body);
        if (json.root() == null) {
            return reject(RejectReason.BAD_JSON, json.problem(), brokerMessageId, null);
        }
        JsonNode root = json.root();
        String type = text(root, "type");
        if (type == null) {
            return reject(RejectReason.MISSING_FIELD, "field 'type' is missing or empty", brokerMessageId, null);
        }
        String dataset = text(root, "dataset");
        Inbound newer = newer(root, "control message " + Printable.of(String.valueOf(brokerMessageId), 80) + " of type '"
                + Printable.of(type, 40) + "'", switch (type) {
                    case DatasetManifest.TYPE -> DatasetManifest.FORMAT_VERSION;
                    case ConsumerReport.TYPE -> ConsumerReport.FORMAT_VERSION;
                    case ResignalCommand.TYPE -> ResignalCommand.FORMAT_VERSION;
                    case InvalidateCommand.TYPE -> InvalidateCommand.FORMAT_VERSION;
                    case DeleteCommand.TYPE -> DeleteCommand.FORMAT_VERSION;
                    default -> FormatVersion.FIRST; // a type of a newer release says so by its version
                }, brokerMessageId, dataset);
        if (newer != null) {
            return newer;
        }
        return switch (type) {
            case DatasetManifest.TYPE -> manifest(root, brokerMessageId);
            case ConsumerReport.TYPE -> report(root, brokerMessageId);
            case ResignalCommand.TYPE -> resignal(root, brokerMessageId);
            case InvalidateCommand.TYPE -> invalidate(root, brokerMessageId);
            case DeleteCommand.TYPE -> delete(root, brokerMessageId);
            default -> reject(RejectReason.WRONG_TYPE, "type '" + type + "' is not one of " + DatasetManifest.TYPE
                    + ", " + ConsumerReport.TYPE + ", " + ResignalCommand.TYPE + ", " + InvalidateCommand.TYPE
                    + ", " + DeleteCommand.TYPE, brokerMessageId, null);
        };
    }

    private Inbound manifest(JsonNode root, String msgId) {
        String dataset = text(root, "dataset");
        NameOrRejection parsed = datasetName(dataset, "manifest", msgId);
        if (parsed.rejected() != null) {
            return parsed.rejected();
        }
        String where = "manifest of dataset " + dataset;
        JsonNode files = root.get("files");
        if (files == null || !files.isArray() || files.isEmpty()) {
            return reject(RejectReason.MISSING_FIELD, where + ": field 'files' is missing or empty", msgId, dataset);
        }
        List<ManifestFile> out = new ArrayList<>(files.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < files.size(); i++) {
            JsonNode f = files.get(i);
            String path = "files[" + i + "]";
            if (!f.isObject()) {
                return reject(RejectReason.BAD_JSON, where + ": " + path + " is not an object", msgId, dataset);
            }
            String guid = text(f, "guid");
            if (guid == null) {
                return reject(RejectReason.MISSING_FIELD, where + ": field '" + path + ".guid' is missing or empty",
                        msgId, dataset);
            }
            long nevents = -1;
            JsonNode n = f.get("nevents");
            if (n != null && !n.isNull()) {
                // canConvertToLong: asLong() of a bigger integer silently keeps only its low 64 bits.
                if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < -1) {
                    return reject(RejectReason.INVALID_VALUE, where + ": " + path + ".nevents of GUID " + guid
                            + " is " + n + "; expected a count >= 0, or -1 when unknown", msgId, dataset);
                }
                nevents = n.asLong();
            }
            if (!seen.add(guid)) {
                return reject(RejectReason.DUPLICATE_GUID, where + " lists GUID " + guid + " twice", msgId, dataset);
            }
            out.add(new ManifestFile(guid, nevents));
        }
        return new Inbound.Manifest(parsed.name(), new DatasetManifest(DatasetManifest.TYPE, dataset,
                List.copyOf(out)));
    }

    private Inbound report(JsonNode root, String msgId) {
        String signalId = text(root, "signalId");
        String dataset = text(root, "dataset");
        if (signalId == null) {
            return reject(RejectReason.MISSING_FIELD, "consumer report for dataset " + dataset
                    + ": field 'signalId' is missing or empty", msgId, dataset);
        }
        String status = text(root, "status");
        if (!ConsumerReport.DONE.equals(status) && !ConsumerReport.FAILED.equals(status)) {
            return reject(status == null ? RejectReason.MISSING_FIELD : RejectReason.INVALID_VALUE,
                    "consumer report for signal " + signalId + " (dataset " + dataset + "): status is '" + status
                            + "', expected " + ConsumerReport.DONE + " or " + ConsumerReport.FAILED, msgId, dataset);
        }
        try {
            return new Inbound.Report(Json.mapper().treeToValue(root, ConsumerReport.class));
        } catch (JsonProcessingException e) {
            return reject(RejectReason.BAD_JSON, "consumer report for signal " + signalId + ": " + original(e), msgId,
                    dataset);
        }
    }

    /** A message of the heartbeat queue: a {@link ConsumerHeartbeat}. */
    Inbound heartbeat(byte[] body, String brokerMessageId) {
        JsonBody json = JsonBody.parse(body);
        if (json.root() == null) {
            return reject(RejectReason.BAD_JSON, json.problem(), brokerMessageId, null);
        }
        String type = text(json.root(), "type");
        if (!ConsumerHeartbeat.TYPE.equals(type)) {
            return reject(type == null ? RejectReason.MISSING_FIELD : RejectReason.WRONG_TYPE, "type is '"
                    + Printable.of(String.valueOf(type), 40) + "'; the heartbeat queue takes only type '"
                    + ConsumerHeartbeat.TYPE + "'", brokerMessageId, null);
        }
        Inbound newer = newer(json.root(), "heartbeat " + Printable.of(String.valueOf(brokerMessageId), 80) + " of consumer "
                + Printable.of(String.valueOf(text(json.root(), "consumer")), 80), ConsumerHeartbeat.FORMAT_VERSION,
                brokerMessageId, null);
        return newer != null ? newer : heartbeat(json.root(), brokerMessageId);
    }

    /**
     * The rejection of a message whose format version is above {@code reads} ({@link RejectReason#NEWER_FORMAT},
     * naming both versions and what to do) or not a version at all ({@link RejectReason#INVALID_VALUE}); null when
     * this supervisor reads it.
     */
    private static Inbound newer(JsonNode root, String what, int reads, String msgId, String dataset) {
        int version;
        try {
            version = FormatVersion.of(root);
        } catch (IllegalArgumentException e) {
            return reject(RejectReason.INVALID_VALUE, what + ": " + e.getMessage(), msgId, dataset);
        }
        return FormatVersion.newer(what, version, reads, "supervisor")
                .map(m -> reject(RejectReason.NEWER_FORMAT, m, msgId, dataset)).orElse(null);
    }

    /**
     * A consumer's heartbeat: a consumer id, a state (idle, or busy with a valid dataset name), an interval within
     * {@link ConsumerHeartbeat#MIN_INTERVAL_MILLIS}..{@link ConsumerHeartbeat#MAX_INTERVAL_MILLIS} and counts that
     * are counts.
     */
    private static Inbound heartbeat(JsonNode root, String msgId) {
        String consumer = text(root, "consumer");
        if (consumer == null) {
            return reject(RejectReason.MISSING_FIELD, "heartbeat: field 'consumer' is missing or empty", msgId, null);
        }
        if (consumer.length() > ConsumerHeartbeat.MAX_CONSUMER_LENGTH) {
            return reject(RejectReason.INVALID_VALUE, "heartbeat: consumer id " + Printable.of(consumer, 80)
                    + " is longer than " + ConsumerHeartbeat.MAX_CONSUMER_LENGTH + " characters", msgId, null);
        }
        String where = "heartbeat of consumer " + Printable.of(consumer, 80);
        String state = text(root, "state");
        if (!ConsumerHeartbeat.IDLE.equals(state) && !ConsumerHeartbeat.BUSY.equals(state)) {
            return reject(state == null ? RejectReason.MISSING_FIELD : RejectReason.INVALID_VALUE, where
                    + ": state is '" + Printable.of(String.valueOf(state), 40) + "', expected "
                    + ConsumerHeartbeat.IDLE + " or " + ConsumerHeartbeat.BUSY, msgId, null);
        }
        Rejection bad = checkCount(root, "ts", "ts", where, msgId, null);
        if (bad == null) {
            bad = checkCount(root, "intervalMillis", "intervalMillis", where, msgId, null);
        }
        if (bad != null) {
            return new Inbound.Rejected(bad);
        }
        long interval = root.get("intervalMillis").asLong();
        if (interval < ConsumerHeartbeat.MIN_INTERVAL_MILLIS || interval > ConsumerHeartbeat.MAX_INTERVAL_MILLIS) {
            return reject(RejectReason.INVALID_VALUE, where + ": intervalMillis is " + interval + ", expected "
                    + ConsumerHeartbeat.MIN_INTERVAL_MILLIS + " to " + ConsumerHeartbeat.MAX_INTERVAL_MILLIS, msgId,
                    null);
        }
        String dataset = text(root, "dataset");
        if (ConsumerHeartbeat.BUSY.equals(state)) {
            NameOrRejection parsed = datasetName(dataset, where + " (busy)", msgId);
            if (parsed.rejected() != null) {
                return parsed.rejected();
            }
            bad = checkCount(root, "objects", "objects", where, msgId, dataset);
            if (bad != null) {
                return new Inbound.Rejected(bad);
            }
            JsonNode read = root.get("objectsRead");
            if (read != null && !read.isNull() && (!read.isIntegralNumber() || !read.canConvertToLong()
                    || read.asLong() < -1)) {
                return reject(RejectReason.INVALID_VALUE, where + ": objectsRead is " + Printable.of(read.toString(),
                        40) + "; expected a count >= 0, or -1 when unknown", msgId, dataset);
            }
            // absent or null from consumers older than the field: the lease then counts from the send
            JsonNode progress = root.get("progress");
            if (progress != null && !progress.isNull() && (!progress.isIntegralNumber() || !progress.canConvertToLong()
                    || progress.asLong() < 0)) {
                return reject(RejectReason.INVALID_VALUE, where + ": progress is " + Printable.of(progress.toString(),
                        40) + "; expected a count >= 0, or no field", msgId, dataset);
            }
        }
        try {
            return new Inbound.Heartbeat(Json.mapper().treeToValue(root, ConsumerHeartbeat.class));
        } catch (JsonProcessingException e) {
            return reject(RejectReason.BAD_JSON, where + ": " + original(e), msgId, dataset);
        }
    }

    private Inbound resignal(JsonNode root, String msgId) {
        NameOrRejection parsed = datasetName(text(root, "dataset"), "resignal command", msgId);
        return parsed.rejected() != null ? parsed.rejected() : new Inbound.Resignal(parsed.name());
    }

    private static Inbound delete(JsonNode root, String msgId) {
        String dataset = text(root, "dataset");
        NameOrRejection parsed = datasetName(dataset, "delete command", msgId);
        if (parsed.rejected() != null) {
            return parsed.rejected();
        }
        List<String> finished = new ArrayList<>();
        JsonNode steps = root.get("finished");
        if (steps != null && !steps.isNull()) {
            for (JsonNode step : steps.isArray() ? steps : List.<JsonNode>of(steps)) {
                String name = step.isTextual() ? step.asText() : null;
                if (!steps.isArray() || name == null || Arrays.stream(DeleteCommand.Step.values())
                        .noneMatch(s -> s.name().equals(name))) {
                    return reject(RejectReason.INVALID_VALUE, "delete command: 'finished' must be a list of "
                            + Arrays.toString(DeleteCommand.Step.values()) + ", got " + Printable.of(steps.toString(), 80),
                            msgId, dataset);
                }
                finished.add(name);
            }
        }
        DeleteCommand.Where where = null;
        JsonNode w = root.get("where");
        if (w != null && !w.isNull()) {
            String[] fields = {"brokers", "hdfsUri", "hdfsRoot", "kuduMasters", "kuduPrefix", "hadoopConfDir"};
            String[] values = new String[fields.length];
            for (int i = 0; i < fields.length; i++) {
                JsonNode f = w.isObject() ? w.get(fields[i]) : null;
                values[i] = f != null && f.isTextual() ? f.asText() : null;
                boolean required = i < 4;
                if (!w.isObject() || required && (values[i] == null || values[i].isBlank())
                        || values[i] != null && values[i].length() > DeleteCommand.Where.MAX_FIELD) {
                    return reject(RejectReason.INVALID_VALUE, "delete command: 'where' must be an object with"
                            + " brokers, hdfsUri, hdfsRoot and kuduMasters (kuduPrefix, hadoopConfDir optional), each"
                            + " at most " + DeleteCommand.Where.MAX_FIELD + " characters; field " + fields[i],
                            msgId, dataset);
                }
            }
            where = new DeleteCommand.Where(values[0], values[1], values[2], values[3], values[4], values[5]);
        }
        return new Inbound.Delete(parsed.name(), new DeleteCommand(DeleteCommand.TYPE, dataset, text(root, "reason"),
                where, finished));
    }

    private static Inbound invalidate(JsonNode root, String msgId) {
        String dataset = text(root, "dataset");
        NameOrRejection parsed = datasetName(dataset, "invalidate command", msgId);
        if (parsed.rejected() != null) {
            return parsed.rejected();
        }
        String url = text(root, "url");
        if (url == null) {
            return reject(RejectReason.MISSING_FIELD, "invalidate command for dataset " + dataset
                    + ": field 'url' is missing or empty", msgId, dataset);
        }
        String reason = text(root, "reason");
        if (reason == null) {
            return reject(RejectReason.MISSING_FIELD, "invalidate command for object " + url + " of dataset "
                    + dataset + ": field 'reason' is missing or empty", msgId, dataset);
        }
        String source = text(root, "source");
        return new Inbound.Invalidate(parsed.name(), new InvalidateCommand(InvalidateCommand.TYPE, dataset, url, reason,
                source == null ? "operator" : source));
    }

    /** A control message's dataset name, parsed: the name, or the message's rejection. */
    private record NameOrRejection(DatasetName name, Inbound rejected) {
    }

    private static NameOrRejection datasetName(String dataset, String what, String msgId) {
        if (dataset == null) {
            return new NameOrRejection(null, reject(RejectReason.MISSING_FIELD, what
                    + ": field 'dataset' is missing or empty", msgId, null));
        }
        try {
            return new NameOrRejection(DatasetName.parse(dataset), null);
        } catch (IllegalArgumentException e) {
            return new NameOrRejection(null, reject(RejectReason.INVALID_DATASET_NAME, what + ": dataset name '"
                    + dataset + "' is invalid: " + e.getMessage(), msgId, null));
        }
    }

    /**
     * The object key must be exactly the key the producer contract derives from the message's own taskID, jobID and
     * uuid, so that one producer login cannot announce an object under another task's or job's prefix.
     */
    private static Rejection checkKey(JsonNode data, S3ObjectUrl url, String msgId, String dataset) {
        String taskID = text(data, "taskID");
        String jobID = text(data, "jobID");
        String uuid = text(data, "uuid");
        String where = "message " + msgId + ": object " + url;
        if (taskID == null || jobID == null || uuid == null) {
            String field = taskID == null ? "taskID" : jobID == null ? "jobID" : "uuid";
            return new Rejection(RejectReason.MISSING_FIELD, where + ": field 'data." + field
                    + "' is missing or empty, so the object key cannot be checked", msgId, dataset);
        }
        ObjectKey expected;
        try {
            expected = ObjectKey.of(taskID, jobID, uuid);
        } catch (IllegalArgumentException e) {
            return new Rejection(RejectReason.INVALID_VALUE, where + ": " + e.getMessage(), msgId, dataset);
        }
        if (!expected.key().equals(url.key())) {
            return new Rejection(RejectReason.WRONG_KEY, where + " has key " + Printable.of(url.key(), 300)
                    + ", expected " + expected.key() + " (from data.taskID, data.jobID and data.uuid)", msgId, dataset);
        }
        return null;
    }

    private static Rejection checkCount(JsonNode node, String field, String path, String where, String msgId,
                                        String dataset) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) {
            return new Rejection(RejectReason.MISSING_FIELD, where + ": field '" + path + "' is missing", msgId,
                    dataset);
        }
        if (!n.isIntegralNumber()) {
            return new Rejection(RejectReason.BAD_JSON, where + ": field '" + path + "' is " + n
                    + ", not an integer", msgId, dataset);
        }
        if (n.asLong() < 0 || !n.canConvertToLong()) {
            return new Rejection(RejectReason.INVALID_VALUE, where + ": field '" + path + "' is " + n
                    + "; must be >= 0", msgId, dataset);
        }
        return null;
    }

    private static String text(JsonNode node, String field) {
        JsonNode n = node.get(field);
        if (n == null || !n.isTextual() || n.asText().isBlank()) {
            return null;
        }
        return n.asText();
    }

    private static Inbound reject(RejectReason reason, String detail, String msgId, String dataset) {
        return new Inbound.Rejected(new Rejection(reason, detail, msgId, dataset));
    }

    private static String original(IOException e) {
        return e instanceof JsonProcessingException j ? j.getOriginalMessage() : String.valueOf(e.getMessage());
    }
}
