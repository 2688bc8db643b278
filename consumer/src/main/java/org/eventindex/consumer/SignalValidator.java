package org.eventindex.consumer;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.EventRange;
import org.eventindex.message.SignalFile;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.message.SignalObject;
import org.eventindex.names.DatasetName;
import org.eventindex.names.Printable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * Checks a {@link ConsumerSignal} before anything is fetched: the dataset name parses and its container is the one
 * given, every object is in the configured S3 endpoint and bucket, every object lists GUIDs, no GUID or object is
 * listed twice, and the event counts add up. A signal that fails here can never succeed, so it is reported FAILED
 * and acknowledged rather than retried. I/O-free.
 */
public final class SignalValidator {
    private final String s3Host;
    private final int s3Port;
    private final String bucket;
    private final long maxDatasetEvents;

    /** @param s3Host host objects must be on; compared case-insensitively, as written (no name resolution) */
    public SignalValidator(String s3Host, int s3Port, String bucket) {
        this(s3Host, s3Port, bucket, Long.MAX_VALUE);
    }

    /** @param maxDatasetEvents most events a signal may announce ({@link ConsumerConfig#DATASET_MAX_EVENTS}) */
    public SignalValidator(String s3Host, int s3Port, String bucket, long maxDatasetEvents) {
        this.s3Host = Objects.requireNonNull(s3Host, "s3Host is null").toLowerCase(Locale.ROOT);
        this.s3Port = s3Port;
        this.bucket = Objects.requireNonNull(bucket, "bucket is null");
        this.maxDatasetEvents = maxDatasetEvents;
    }

    public static SignalValidator forConfig(ConsumerConfig config) {
        return new SignalValidator(config.s3Endpoint().getHost(), config.s3EndpointPort(), config.s3Bucket(),
                config.limits().datasetMaxEvents());
    }

    /** @throws ConsumeException with a reason naming the signal, dataset and the offending field or object */
    public ValidSignal validate(ConsumerSignal signal) throws ConsumeException {
        Objects.requireNonNull(signal, "signal is null");
        String id = signal.signalId();
        if (id == null || id.isBlank()) {
            throw reject(signal, "signalId is missing");
        }
        if (signal.type() != null && !ConsumerSignal.TYPE.equals(signal.type())) {
            throw reject(signal, "type is '" + signal.type() + "', expected '" + ConsumerSignal.TYPE + "'");
        }
        DatasetName name;
        try {
            name = DatasetName.parse(signal.dataset());
        } catch (IllegalArgumentException e) {
            throw reject(signal, "dataset name is invalid: " + e.getMessage());
        }
        String container = name.container();
        if (!container.equals(signal.container())) {
            throw reject(signal, "container '" + signal.container() + "' is not the dataset's container '"
                    + container + "'");
        }
        if (signal.dspid() < 0) {
            throw reject(signal, "dspid " + signal.dspid() + " is negative");
        }
        if (signal.epoch() < 0) {
            throw reject(signal, "epoch " + signal.epoch() + " is negative");
        }
        if (signal.expectedEvents() > maxDatasetEvents) {
            throw reject(signal, "announces " + signal.expectedEvents() + " events, more than "
                    + ConsumerConfig.DATASET_MAX_EVENTS + " = " + maxDatasetEvents);
        }
        List<SignalObject> objects = signal.objects();
        if (objects == null || objects.isEmpty()) {
            throw reject(signal, "lists no objects");
        }
        List<SelectedObject> selected = new ArrayList<>(objects.size());
        Set<String> urls = new HashSet<>();
        Map<String, String> guidOwner = new HashMap<>();
        long total = 0;
        for (int i = 0; i < objects.size(); i++) {
            SignalObject o = objects.get(i);
            if (o == null) {
                throw reject(signal, "object #" + i + " is null");
            }
            S3ObjectUrl url = checkUrl(signal, i, o.url());
            if (!urls.add(url.toString())) {
                throw reject(signal, "object " + url + " is listed twice");
            }
            if (o.guids() == null || o.guids().isEmpty()) {
                throw reject(signal, "object " + url + " lists no GUIDs");
            }
            Set<String> guids = new LinkedHashSet<>();
            for (String g : o.guids()) {
                if (g == null || g.isBlank()) {
                    throw reject(signal, "object " + url + " lists an empty GUID");
                }
                String previous = guidOwner.putIfAbsent(g, url.toString());
                if (previous != null) {
                    throw reject(signal, "GUID " + g + " is listed for object " + url
                            + (previous.equals(url.toString()) ? " twice" : " and for object " + previous));
                }
                guids.add(g);
            }
            if (o.expectedEvents() < 0) {
                throw reject(signal, "object " + url + " expects a negative event count " + o.expectedEvents());
            }
            try {
                total = Math.addExact(total, o.expectedEvents());
            } catch (ArithmeticException e) {
                throw reject(signal, "expected events of its objects add up to more than " + Long.MAX_VALUE);
            }
            if (o.usize() < 0) {
                throw reject(signal, "object " + url + " declares a negative uncompressed size " + o.usize());
            }
            selected.add(new SelectedObject(i, url, guids, o.expectedEvents(), o.usize(),
                    files(signal, url, o, guids)));
        }
        if (total != signal.expectedEvents()) {
            throw reject(signal, "expectedEvents " + signal.expectedEvents() + " is not the sum over its objects ("
                    + total + ")");
        }
        return new ValidSignal(signal, name, selected);
    }

    /**
     * The producer's claims per GUID ({@link SignalObject#files}), when the signal carries them: one per listed GUID,
     * in the same order, with counts that add up to the object's {@code expectedEvents} and well-formed run ranges.
     */
    private static Map<String, SignalFile> files(ConsumerSignal signal, S3ObjectUrl url, SignalObject o,
                                                 Set<String> guids) throws ConsumeException {
        List<SignalFile> files = o.files();
        if (files == null) {
            return Map.of();
        }
        if (files.size() != guids.size()) {
            throw reject(signal, "object " + url + " lists " + guids.size() + " GUIDs but " + files.size()
                    + " files");
        }
        Map<String, SignalFile> byGuid = new HashMap<>();
        long total = 0;
        Iterator<String> order = guids.iterator();
        for (SignalFile f : files) {
            String guid = order.next();
            if (f == null || !guid.equals(f.guid())) {
                throw reject(signal, "object " + url + ": its files do not follow its GUIDs (GUID " + guid
                        + " has " + (f == null ? "a null file" : "file " + Printable.of(String.valueOf(f.guid()), 80))
                        + ")");
            }
            if (f.nevents() < 0) {
                throw reject(signal, "object " + url + " GUID " + guid + ": negative event count " + f.nevents());
            }
            if (f.runevtRanges() != null) {
                for (Map.Entry<String, EventRange> r : f.runevtRanges().entrySet()) {
                    if (r.getValue() == null || !isRun(r.getKey())) {
                        throw reject(signal, "object " + url + " GUID " + guid + ": run range '"
                                + Printable.of(String.valueOf(r.getKey()), 40) + "' is not a run and an event range");
                    }
                }
            }
            try {
                total = Math.addExact(total, f.nevents());
            } catch (ArithmeticException e) {
                throw reject(signal, "object " + url + ": the event counts of its files add up to more than "
                        + Long.MAX_VALUE);
            }
            byGuid.put(guid, f);
        }
        if (total != o.expectedEvents()) {
            throw reject(signal, "object " + url + " expects " + o.expectedEvents() + " events but its files add up to "
                    + total);
        }
        return byGuid;
    }

    /** A run number as the producer writes it: a decimal uint32. */
    private static boolean isRun(String s) {
        if (s == null || s.isEmpty() || s.length() > 10) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return Long.parseLong(s) <= 0xffffffffL;
    }

    private S3ObjectUrl checkUrl(ConsumerSignal signal, int index, String raw) throws ConsumeException {
        S3ObjectUrl url;
        try {
            url = S3ObjectUrl.parse(raw);
        } catch (IllegalArgumentException e) {
            throw reject(signal, "object #" + index + ": " + e.getMessage());
        }
        if (!url.host().toLowerCase(Locale.ROOT).equals(s3Host) || url.port() != s3Port) {
            throw reject(signal, "object " + url + " is not on the configured S3 endpoint " + s3Host + ":" + s3Port);
        }
        if (!url.bucket().equals(bucket)) {
            throw reject(signal, "object " + url + " is not in the configured bucket '" + bucket + "'");
        }
        return url;
    }

    private static ConsumeException reject(ConsumerSignal signal, String what) {
        return new ConsumeException(FATAL, "invalid signal " + Printable.of(String.valueOf(signal.signalId()), 100)
                + " for dataset " + Printable.of(String.valueOf(signal.dataset()), 300) + ": " + what);
    }
}
