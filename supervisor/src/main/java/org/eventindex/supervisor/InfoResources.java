package org.eventindex.supervisor;

import org.eventindex.ops.QueryString;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/** The JSON documents of the information service, each item at its own URL (seed 003 §4). */
final class InfoResources {
    /** A signal out with no report yet: the work in flight; {@code lease} once SIGNALLED (see {@link DatasetView}). */
    record InFlight(String dataset, String signalId, CollectionState state,
                    @JsonSerialize(using = ToStringSerializer.class) Instant sentAt, long expectedEvents,
                    int objects, int resignals, DatasetView.Lease lease) {
    }

    /**
     * {@code /consumers}: the signals out, and every consumer known by its reports or its heartbeats (idle ones too),
     * each with its last heartbeat's liveness.
     *
     * @param missingAfterHeartbeats a consumer is missing after this many of its intervals without a heartbeat
     */
    record Consumers(List<InFlight> inFlight, List<ConsumerView> consumers, int missingAfterHeartbeats) {
    }

    /**
     * {@code /supervisor} plus dataset counts by state (live datasets; retired ones apart), epoch fill and the deletes
     * an operator's {@code delete-dataset} did not finish.
     */
    record Overview(SupervisorInfo supervisor, Map<CollectionState, Integer> datasetsByState, int datasetsRetired,
                    int currentEpoch, long eventsInCurrentEpoch, List<UnfinishedDelete> deletesUnfinished) {
    }

    /** A deleted dataset whose {@code delete-dataset} has steps left, and the command that finishes them. */
    record UnfinishedDelete(String dataset, List<String> stepsLeft, String finishWith) {
    }

    private final SupervisorEngine engine;
    private final Supplier<SupervisorInfo> info;
    private final Clock clock;
    private final int missingHeartbeats;

    /** @param missingHeartbeats {@code supervisor.consumer.missing.heartbeats} */
    InfoResources(SupervisorEngine engine, Supplier<SupervisorInfo> info, Clock clock, int missingHeartbeats) {
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.info = Objects.requireNonNull(info, "info is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.missingHeartbeats = missingHeartbeats;
    }

    /** {@code /datasets/<name>}; null = 404. */
    Object dataset(String name) {
        return engine.dataset(name).<Object>map(v -> v).orElseGet(() -> engine.read(st -> st.lookup(name).deleted()
                .map(DeletedDataset::view).orElse(null)));
    }

    /**
     * {@code /datasets}, or {@code /datasets?state=S[,S...]} for the datasets in those states only (retired ones are
     * DONE).
     *
     * @throws IllegalArgumentException naming the parameter and the valid states when one is unknown
     */
    List<DatasetSummary> datasets(QueryString query) {
        Set<CollectionState> states = EnumSet.noneOf(CollectionState.class);
        query.all("state").forEach(list -> states.addAll(states(list)));
        return engine.summaries(states);
    }

    /**
     * The states of a comma-separated list (case-insensitive); empty for an empty list.
     *
     * @throws IllegalArgumentException naming {@code ?state=} and the valid states when one is unknown
     */
    static Set<CollectionState> states(String list) {
        Set<CollectionState> states = EnumSet.noneOf(CollectionState.class);
        for (String s : list.isBlank() ? new String[0] : list.split(",")) {
            try {
                states.add(CollectionState.valueOf(s.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown state '" + s + "' in ?state=; states are "
                        + Arrays.toString(CollectionState.values()), e);
            }
        }
        return states;
    }

    /**
     * {@code /progress}: every live dataset's stage times and, for those not done, when a consumer will have loaded
     * them ({@link DatasetProgress}).
     */
    DatasetProgress progress() {
        long now = clock.millis();
        return engine.read(state -> {
            List<ConsumerView> consumers = engine.heartbeats().merge(state.consumers().views(), now,
                    missingHeartbeats);
            Map<String, ConsumerLiveness> busy = new java.util.HashMap<>();
            int live = 0;
            for (ConsumerView c : consumers) {
                ConsumerLiveness h = c.heartbeat();
                if (h != null && !h.missing()) {
                    live++;
                    if (h.dataset() != null && h.busySince() != null) {
                        busy.put(h.dataset() + "\n" + h.signalId(), h);
                    }
                }
            }
            List<DatasetProgress.Input> in = new ArrayList<>();
            List<DatasetProgress.Report> reports = new ArrayList<>();
            for (TrackedDataset d : state.all()) {
                Selection sel = d.selection();
                org.eventindex.message.ConsumerReport r = d.lastReport;
                long taken = -1;
                String consumer = null;
                if (d.state == CollectionState.DONE && r != null && d.lastReportAt >= 0) {
                    taken = d.lastReportAt - r.durationMillis();
                    consumer = r.consumer();
                    reports.add(new DatasetProgress.Report(d.lastReportAt, r.eventsLoaded(), r.durationMillis()));
                } else if (d.state == CollectionState.SIGNALLED) {
                    ConsumerLiveness h = busy.get(d.name + "\n" + d.signal.signalId());
                    if (h != null) {
                        taken = h.busySince().toEpochMilli();
                        consumer = h.dataset() == null ? null : consumerOf(consumers, h);
                    }
                }
                in.add(new DatasetProgress.Input(d.name, d.state, sel.expectedFiles(), sel.filesWithCandidate(),
                        d.signal != null ? d.signal.expectedEvents() : sel.expectedEvents(), d.firstObjectAt,
                        d.plannedAt, d.sentAt, taken, d.doneAt, consumer,
                        d.state == CollectionState.FAILED_CONSUMER && r != null ? r.reason() : null));
            }
            return DatasetProgress.of(in, reports, live, now);
        });
    }

    private static String consumerOf(List<ConsumerView> consumers, ConsumerLiveness h) {
        return consumers.stream().filter(c -> c.heartbeat() == h).map(ConsumerView::consumer).findFirst()
                .orElse(null);
    }

    Consumers consumers() {
        return engine.read(state -> {
            List<InFlight> flight = new ArrayList<>();
            for (TrackedDataset d : state.all()) {
                if (d.state == CollectionState.SIGNAL_PLANNED || d.state == CollectionState.SIGNALLED) {
                    flight.add(new InFlight(d.name, d.signal.signalId(), d.state,
                            d.sentAt < 0 ? null : Instant.ofEpochMilli(d.sentAt), d.signal.expectedEvents(),
                            d.signal.objects().size(), d.resignals, engine.lease(d).orElse(null)));
                }
            }
            return new Consumers(flight, engine.heartbeats().merge(state.consumers().views(), clock.millis(),
                    missingHeartbeats), missingHeartbeats);
        });
    }

    Overview supervisor() {
        SupervisorInfo i = info.get();
        return engine.read(state -> {
            Map<CollectionState, Integer> byState = new LinkedHashMap<>();
            for (CollectionState s : CollectionState.values()) {
                byState.put(s, 0);
            }
            state.all().forEach(d -> byState.merge(d.state, 1, Integer::sum));
            List<UnfinishedDelete> unfinished = state.deleted().stream().filter(DeletedDataset::unfinished)
                    .map(t -> new UnfinishedDelete(t.name(), t.stepsLeft(), t.finishWith()))
                    .sorted(java.util.Comparator.comparing(UnfinishedDelete::dataset)).toList();
            return new Overview(i, byState, state.retired().size(), state.currentEpoch(), state.eventsInEpoch(),
                    unfinished);
        });
    }
}
