package org.eventindex.supervisor;

import org.eventindex.ops.QueryString;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.SignalObject;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The JSON the web console reads besides the information service's own resources ({@code /datasets/<name>},
 * {@code /consumers}): {@code /console/overview} (what needs an operator, rates now), {@code /console/datasets} (the
 * dataset table, filtered, sorted and paged on the server so that a page stays small however many datasets the
 * supervisor holds), {@code /console/objects/<name>} (a dataset's objects with their fate) and
 * {@code /console/history} (the plots' time series, see {@link History}), {@code /console/requests/<name>} (the
 * operator requests that named a dataset, with who sent each) and {@code /console/verify} (the scheduled verify's
 * findings, {@link DatasetAudit}).
 */
final class ConsoleResources {
    /** The window of the "now" rates of the overview. */
    static final Duration RATE_WINDOW = Duration.ofMinutes(5);
    /** Largest page of {@code /console/datasets}. */
    static final int MAX_PAGE = 500;
    /** Datasets sent to the per-dataset plots. */
    static final int PLOT_DATASETS = 1000;

    /** A dataset that needs an operator, and why; {@code state} null for a deleted dataset with steps left. */
    record Attention(String dataset, CollectionState state, String reason,
                     @JsonSerialize(using = ToStringSerializer.class) Instant since) {
    }

    /**
     * {@code /console/overview}.
     *
     * @param objectsPerSecond producer objects recorded per second over the last {@code rateWindowSeconds}
     * @param eventsPerSecond  events written by DONE reports per second over the same window
     */
    record Overview(Map<CollectionState, Integer> datasetsByState, int datasetsRetired, int consumers,
                    int consumersBusy, int consumersMissing, double objectsPerSecond, double eventsPerSecond,
                    long rateWindowSeconds, long stuckAfterSeconds, List<Attention> needsOperator,
                    long rejectedMessages, long journalSeq, Commands commands) {
    }

    /**
     * What the operator commands shown by the console need: the supervisor's brokers (its own
     * {@code supervisor.brokers}) and Kudu masters (empty when the supervisor does not manage ranges).
     */
    record Commands(String brokers, String kuduMasters) {
    }

    /** One line of the dataset table. Times are null when not reached; age is from the first object or manifest. */
    record Row(String name, CollectionState state, long ageSeconds,
               @JsonSerialize(using = ToStringSerializer.class) Instant firstSeenAt,
               @JsonSerialize(using = ToStringSerializer.class) Instant doneAt, int expectedFiles,
               int objectsReported, int selectedObjects, long expectedEvents, Integer dspid, boolean retired) {
    }

    /** {@code /console/datasets}: one page of the matching rows and how many match in all. */
    record Page(int total, int offset, int limit, String sort, boolean descending, List<Row> rows) {
    }

    /**
     * One object of a dataset.
     *
     * @param fate selected (read, or to be read), duplicate (its files were taken by another), late (reported after
     *             the signal), invalid (an operator invalidated it), unused (not selected yet)
     */
    record ObjectRow(String url, String fate, long size, long usize, List<String> guids, long events, String jobId,
                     String messageId, String invalidReason, boolean deleted) {
    }

    /** {@code /console/objects/<name>}; {@code retired} datasets keep no object list. */
    record ObjectList(String dataset, boolean retired, Map<String, Integer> byFate, List<ObjectRow> objects) {
    }

    /** Object sizes in [{@code from}, {@code to}) bytes. */
    record SizeBin(long from, long to, long objects) {
    }

    /** An operator request about a dataset, its answer and who sent it ({@code by}: all of it in words). */
    record Request(String requestId, String outcome, String detail, String by, String brokerLogin,
                   String claimedUser, String httpUser) {
    }

    /** {@code /console/history}. */
    record HistoryDoc(int days, @JsonSerialize(using = ToStringSerializer.class) Instant now, int hours,
                      List<History.Minute> minutes, List<History.Minute> perHour,
                      List<History.DatasetPoint> datasets, List<SizeBin> objectSizes) {
    }

    private final SupervisorEngine engine;
    private final Clock clock;
    private final Duration stuckAfter;
    private final int missingHeartbeats;
    private final Commands commands;
    private final DatasetAudit audit;

    /** @param audit the scheduled verify, null when off ({@code /console/verify} then says so) */
    ConsoleResources(SupervisorEngine engine, Clock clock, Duration stuckAfter, int missingHeartbeats,
                     Commands commands, DatasetAudit audit) {
        this.audit = audit;
        this.commands = Objects.requireNonNull(commands, "commands is null");
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.stuckAfter = Objects.requireNonNull(stuckAfter, "stuckAfter is null");
        this.missingHeartbeats = missingHeartbeats;
    }

    /** The JSON resource at {@code /console}: {@code overview}, {@code datasets}, {@code objects/<name>}. */
    Object get(String rest, QueryString q) {
        if (rest.equals("overview")) {
            return overview();
        } else if (rest.equals("datasets")) {
            return datasets(q);
        } else if (rest.startsWith("objects/")) {
            return objects(rest.substring("objects/".length()));
        } else if (rest.equals("history")) {
            return history(q);
        } else if (rest.startsWith("requests/")) {
            return requests(rest.substring("requests/".length()));
        } else if (rest.equals("verify")) {
            return audit == null ? Map.of("enabled", false, "key", SupervisorConfig.VERIFY_INTERVAL)
                    : Map.of("enabled", true, "report", audit.report());
        }
        return null;
    }

    /**
     * {@code /console/requests/<name>}: the operator requests that named the dataset (the last answers the supervisor
     * keeps), oldest first, each with who sent it: the broker login the broker vouched for, the OS user the command
     * claimed.
     */
    List<Request> requests(String dataset) {
        return engine.read(st -> st.answersFor(dataset).stream().map(a -> new Request(a.requestId(), a.outcome(),
                a.detail(), new Issuer(a.brokerLogin(), a.claimedUser(), a.httpUser()).describe(), a.brokerLogin(),
                a.claimedUser(), a.httpUser())).toList());
    }

    Overview overview() {
        long now = clock.millis();
        List<ConsumerView> consumers = engine.read(st -> engine.heartbeats().merge(st.consumers().views(), now,
                missingHeartbeats));
        int busy = (int) consumers.stream().filter(c -> c.heartbeat() != null && "busy".equals(c.heartbeat().state()))
                .count();
        int missing = (int) consumers.stream().filter(c -> c.heartbeat() != null && c.heartbeat().missing()).count();
        return engine.read(st -> {
            Map<CollectionState, Integer> byState = new LinkedHashMap<>();
            for (CollectionState s : CollectionState.values()) {
                byState.put(s, 0);
            }
            List<Attention> attention = new ArrayList<>();
            for (TrackedDataset d : st.all()) {
                byState.merge(d.state, 1, Integer::sum);
                long since = DatasetAges.firstSeen(d);
                if (d.state == CollectionState.HELD) {
                    attention.add(new Attention(d.name, d.state, "held: " + d.selection().conflicts().stream()
                            .map(Conflict::reason).collect(Collectors.joining("; ")), instant(since)));
                } else if (HandOffPolicy.failedInternally(d)) {
                    attention.add(new Attention(d.name, d.state, "consumer internal error (a bug in the consumer; the"
                            + " objects are kept: resignal once it is fixed): " + d.lastReport.reason(),
                            instant(d.lastReportAt)));
                } else if (d.state == CollectionState.FAILED_CONSUMER) {
                    attention.add(new Attention(d.name, d.state, "consumer failed"
                            + (d.lastReport == null ? "" : ": " + d.lastReport.reason()), instant(d.lastReportAt)));
                } else if (d.state != CollectionState.DONE && since >= 0 && now - since > stuckAfter.toMillis()) {
                    attention.add(new Attention(d.name, d.state, "stuck: " + d.state + " for "
                            + Duration.ofSeconds((now - since) / 1000) + " (more than "
                            + SupervisorConfig.CONSOLE_STUCK_AFTER + " " + stuckAfter + ")", instant(since)));
                }
            }
            for (DeletedDataset t : st.deleted()) {
                if (t.unfinished()) {
                    attention.add(new Attention(t.name(), null, "delete-dataset did not finish: left: " + t.left()
                            + "; finish with: " + t.finishWith(), instant(t.deletedAt())));
                }
            }
            attention.sort(Comparator.comparing(Attention::dataset));
            long from = now - RATE_WINDOW.toMillis();
            List<History.Minute> recent = st.history().minutes(from);
            double seconds = RATE_WINDOW.toSeconds();
            return new Overview(byState, st.retired().size(), consumers.size(), busy, missing,
                    recent.stream().mapToLong(History.Minute::objects).sum() / seconds,
                    recent.stream().mapToLong(History.Minute::events).sum() / seconds, RATE_WINDOW.toSeconds(),
                    stuckAfter.toSeconds(), attention, st.rejectedMessages(), st.lastSeq(), commands);
        });
    }

    /**
     * {@code ?q=} name contains (case-insensitive), {@code state=S[,S]}, {@code minAge=}/{@code maxAge=} seconds,
     * {@code sort=} name|state|age|objects|events|done|dspid, {@code order=} asc|desc, {@code offset=},
     * {@code limit=} (at most {@link #MAX_PAGE}).
     *
     * @throws IllegalArgumentException naming the parameter when one is malformed
     */
    Page datasets(QueryString q) {
        String needle = q.get("q").orElse("").trim().toLowerCase(Locale.ROOT);
        Set<CollectionState> states = InfoResources.states(q.get("state").orElse(""));
        long minAge = number(q, "minAge", -1);
        long maxAge = number(q, "maxAge", -1);
        int offset = (int) Math.min(Integer.MAX_VALUE, number(q, "offset", 0));
        int limit = (int) number(q, "limit", 50);
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be within 1.." + MAX_PAGE + ", got " + limit);
        }
        String sort = q.get("sort").orElse("name");
        Comparator<Row> order = switch (sort) {
            case "name" -> Comparator.comparing(Row::name);
            case "state" -> Comparator.comparing(Row::state).thenComparing(Row::name);
            case "age" -> Comparator.comparingLong(Row::ageSeconds).thenComparing(Row::name);
            case "objects" -> Comparator.comparingInt(Row::objectsReported).thenComparing(Row::name);
            case "events" -> Comparator.comparingLong(Row::expectedEvents).thenComparing(Row::name);
            case "done" -> Comparator.comparing(Row::doneAt, Comparator.nullsFirst(Comparator.naturalOrder()))
                    .thenComparing(Row::name);
            case "dspid" -> Comparator.comparing(Row::dspid, Comparator.nullsFirst(Comparator.naturalOrder()))
                    .thenComparing(Row::name);
            default -> throw new IllegalArgumentException("unknown sort '" + sort
                    + "' in ?sort=; sorts are name, state, age, objects, events, done, dspid");
        };
        String dir = q.get("order").orElse("asc");
        if (!dir.equals("asc") && !dir.equals("desc")) {
            throw new IllegalArgumentException("order must be asc or desc, got '" + dir + "'");
        }
        boolean descending = dir.equals("desc");
        long now = clock.millis();
        List<Row> rows = engine.read(st -> {
            List<Row> all = new ArrayList<>();
            for (TrackedDataset d : st.all()) {
                all.add(new Row(d.name, d.state, age(now, DatasetAges.firstSeen(d)),
                        instant(DatasetAges.firstSeen(d)), instant(d.doneAt),
                        d.manifest == null ? -1 : d.manifest.size(), d.objectsReported(),
                        d.signal == null ? 0 : d.signal.objects().size(),
                        d.signal == null ? 0 : d.signal.expectedEvents(), d.dspid < 0 ? null : d.dspid, false));
            }
            for (RetiredDataset r : st.retired()) {
                long seen = r.firstObjectAt() < 0 ? r.manifestAt() : r.manifestAt() < 0 ? r.firstObjectAt()
                        : Math.min(r.firstObjectAt(), r.manifestAt());
                all.add(new Row(r.name(), CollectionState.DONE, age(now, seen), instant(seen), instant(r.doneAt()),
                        r.expectedFiles(), r.objectsReported(), r.selectedObjects(), r.expectedEvents(), r.dspid(),
                        true));
            }
            return all;
        });
        List<Row> matching = rows.stream()
                .filter(r -> needle.isEmpty() || r.name().toLowerCase(Locale.ROOT).contains(needle))
                .filter(r -> states.isEmpty() || states.contains(r.state()))
                .filter(r -> minAge < 0 || r.ageSeconds() >= minAge)
                .filter(r -> maxAge < 0 || r.ageSeconds() <= maxAge)
                .sorted(descending ? order.reversed() : order).toList();
        int from = Math.min(offset, matching.size());
        return new Page(matching.size(), from, limit, sort, descending,
                List.copyOf(matching.subList(from, Math.min(matching.size(), from + limit))));
    }

    /** A dataset's objects, selected first; null (404) for a dataset the supervisor does not know. */
    ObjectList objects(String name) {
        return engine.read(st -> {
            SupervisorState.Lookup found = st.lookup(name);
            TrackedDataset d = found.live().orElse(null);
            if (d == null) {
                return found instanceof SupervisorState.Lookup.Unknown ? null
                        : new ObjectList(name, true, Map.of(), List.of());
            }
            Map<String, SignalObject> selected = new HashMap<>();
            List<SignalObject> chosen = d.signal != null ? d.signal.objects() : d.selection().objects();
            chosen.forEach(o -> selected.put(o.url(), o));
            Set<String> late = Set.copyOf(d.lateObjects);
            List<ObjectRow> out = new ArrayList<>();
            for (Candidate c : d.candidates) {
                SignalObject s = selected.get(c.url());
                String fate = d.invalidObjects.containsKey(c.url()) ? "invalid" : s != null ? "selected"
                        : late.contains(c.url()) ? "late" : d.signal != null ? "duplicate" : "unused";
                long events = s != null ? s.expectedEvents()
                        : c.guids().stream().mapToLong(GuidInfo::nevents).sum();
                out.add(new ObjectRow(c.url(), fate, c.size(), c.usize(),
                        s != null ? s.guids() : c.guids().stream().map(GuidInfo::guid).toList(), events, c.jobId(),
                        c.messageId(), d.invalidObjects.get(c.url()), d.deletedObjects.contains(c.url())));
            }
            List<String> fates = List.of("selected", "duplicate", "late", "invalid", "unused");
            out.sort(Comparator.comparingInt((ObjectRow r) -> fates.indexOf(r.fate())).thenComparing(ObjectRow::url));
            Map<String, Integer> byFate = new LinkedHashMap<>();
            fates.forEach(f -> byFate.put(f, 0));
            out.forEach(r -> byFate.merge(r.fate(), 1, Integer::sum));
            return new ObjectList(name, false, byFate, out);
        });
    }

    /** {@code ?hours=} of per-minute rows (default 24, at most the history's days); per hour: all of it. */
    HistoryDoc history(QueryString q) {
        long now = clock.millis();
        return engine.read(st -> {
            History h = st.history();
            int hours = (int) number(q, "hours", 24);
            if (hours < 1 || hours > h.days() * 24) {
                throw new IllegalArgumentException("hours must be within 1.." + h.days() * 24 + " ("
                        + SupervisorConfig.HISTORY_DAYS + " " + h.days() + "), got " + hours);
            }
            List<Long> sizes = h.objectSizes();
            List<SizeBin> bins = new ArrayList<>();
            for (int i = 0; i < sizes.size(); i++) {
                bins.add(new SizeBin(i == 0 ? 0 : 1L << i, 1L << (i + 1), sizes.get(i)));
            }
            return new HistoryDoc(h.days(), Instant.ofEpochMilli(now), hours,
                    h.minutes(now - hours * 3_600_000L), h.hours(), h.datasets(PLOT_DATASETS), bins);
        });
    }

    private static long age(long now, long since) {
        return since < 0 ? 0 : Math.max(0, now - since) / 1000;
    }

    private static Instant instant(long millis) {
        return millis < 0 ? null : Instant.ofEpochMilli(millis);
    }

    private static long number(QueryString q, String key, long otherwise) {
        String v = q.get(key).orElse(null);
        if (v == null || v.isBlank()) {
            return otherwise;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < 0) {
                throw new NumberFormatException("negative");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("?" + key + "= must be a whole number >= 0, got '" + v + "'", e);
        }
    }

}
