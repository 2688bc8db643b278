package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.ProducerMessage;
import org.eventindex.message.SignalObject;
import org.eventindex.names.DatasetName;
import org.eventindex.spb.SpbSummary;
import org.eventindex.supervisor.ha.RebuildLease;
import org.eventindex.supervisor.ha.SharedDirLeadership;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * {@code supervisor rebuild-state} (decision 0054): brings a lost or older (restored) journal up to date with the
 * sources of truth, run while the supervisor is stopped (it takes the journal's lock, or a pair's lease: decision
 * 0062). The journal's state is replayed as at a start; then
 * <ol>
 *   <li>every object of the bucket that no entry names is read (user metadata and the SPB content, which holds the
 *       GUIDs) and recorded as the producer's message would have been ({@code OBJECT_REPORTED}, message id
 *       {@code rebuilt:<key>}), in the producers' time order; an object of a retired or deleted dataset is left to
 *       the cleanup as an orphan; one that cannot be read or validated is undecided;</li>
 *   <li>every dataset it then knows is compared with its Kudu DATASETS row and its HDFS file: a LOADED row whose load
 *       id is not the journal's DONE signal becomes that signal ({@code SIGNAL_PLANNED} with the row's dspid, epoch
 *       and load id, the objects from the file's footer), sent and reported DONE; a row that says less than the
 *       journal, or a file missing, is undecided;</li>
 *   <li>a dataset left collecting without a file list gets the catalogue's (when configured), else it is
 *       undecided;</li>
 *   <li>a {@code STATE_RECONCILED} entry closes it: the highest dspid of DATASETS (no new dataset gets it again), the
 *       listing's start time and the undecided objects, which together tell the cleanup which objects no entry names
 *       it may delete ({@link Reconciliation}).</li>
 * </ol>
 * Everything is appended as journal entries (the journal stays the one record, and a {@code --dry-run} applies the
 * same entries to the state in memory only), so the supervisor started afterwards replays it like any other.
 */
public final class StateRebuild {
    /** Producer message id of an object recorded by a rebuild: {@code rebuilt:<key>}. */
    static final String MESSAGE_ID_PREFIX = "rebuilt:";
    /** The consumer a rebuilt DONE report names. */
    static final String REPORTER = "rebuild-state";
    /** The holder a rebuild's lease names on a supervisor pair's store: {@code rebuild-state@<host>:<pid>}. */
    public static final String LEASE_ID_PREFIX = "rebuild-state@";

    /** An object's user metadata (keys lower case) and the summary of its SPB content. */
    public record StoredObject(Map<String, String> metadata, SpbSummary summary) {
        public StoredObject {
            metadata = Map.copyOf(requireNonNull(metadata, "metadata is null"));
            requireNonNull(summary, "summary is null");
        }
    }

    /** The bucket, as the rebuild reads it. */
    interface Bucket {
        List<CleanupStore.ListedObject> list() throws IOException;

        StoredObject read(String key) throws IOException;
    }

    /** Kudu and HDFS, as the operator command reads them (the supervisor module holds no Kudu loader). */
    public interface Loads {
        /** The DATASETS row of {@code dataset}, if any. */
        Optional<LoadRow> row(String dataset) throws IOException;

        /** The highest dspid in DATASETS; 0 when it is empty. */
        int maxDspid() throws IOException;

        /** The footer of the dataset's consolidated file in HDFS, if there is one. */
        Optional<LoadFile> file(String dataset) throws IOException;
    }

    /**
     * A DATASETS row.
     *
     * @param state    {@code LOADED}, {@code LOADING} or what the row holds
     * @param signalTs the selection time of the load ({@code signal_ts}), 0 when unknown
     */
    public record LoadRow(String dataset, int dspid, int epoch, String state, String loadId, String hdfsPath,
                          long signalTs, long events) {
        boolean loaded() {
            return "LOADED".equals(state);
        }
    }

    /** A consolidated file's footer: the signal it was built for and the files it took, in signal order. */
    public record LoadFile(String path, String signalId, List<LoadFileEntry> files) {
        public LoadFile {
            files = List.copyOf(files);
        }
    }

    /** One input file of a consolidated file: its GUID, the object it was read from and its events. */
    public record LoadFileEntry(String guid, String object, long events) {
    }

    /** Something the rebuild could not decide, with why and what to do. */
    public record Undecided(String what, String reason) {
        public String line() {
            return what + ": " + reason;
        }
    }

    /**
     * What a rebuild found and did.
     *
     * @param changes   one line per journal entry appended (or, with {@code dryRun}, that would be)
     * @param written   whether the entries were appended to the journal
     * @param journal   the journal's directory
     * @param lastSeq   the journal's last entry after the rebuild
     */
    public record Result(String journal, boolean written, long lastSeq, long listedAt, int objectsListed,
                         int objectsKnown, int objectsRecorded, int objectsOfFinishedDatasets, int datasetsChecked,
                         int signalsRebuilt, int reportsRebuilt, int fileListsAdded, int dspidFloor,
                         List<String> changes, List<Undecided> undecided) {
        public Result {
            changes = List.copyOf(changes);
            undecided = List.copyOf(undecided);
        }
    }

    private final SupervisorState state;
    private final Bucket bucket;
    private final MessageValidator validator;
    private final Loads loads;
    private final Catalogue catalogue;
    private final Consumer<String> progress;
    private final Clock clock;

    private final List<JournalEvent> events = new ArrayList<>();
    private final List<String> changes = new ArrayList<>();
    private final List<Undecided> undecided = new ArrayList<>();
    private final List<String> undecidedObjects = new ArrayList<>();
    /** Datasets recorded objects were adopted for: name -> their infos (by URL). */
    private final Map<String, Map<String, ProducerInfo>> adopted = new LinkedHashMap<>();
    private int listed;
    private int known;
    private int recorded;
    private int ofFinished;
    private int checked;
    private int signals;
    private int reports;
    private int fileLists;
    private int floor;
    private long listedAt;

    /** @param catalogue null when none is configured */
    StateRebuild(SupervisorState state, Bucket bucket, MessageValidator validator, Loads loads, Catalogue catalogue,
                 Clock clock, Consumer<String> progress) {
        this.state = requireNonNull(state, "state is null");
        this.bucket = requireNonNull(bucket, "bucket is null");
        this.validator = requireNonNull(validator, "validator is null");
        this.loads = requireNonNull(loads, "loads is null");
        this.catalogue = catalogue;
        this.clock = requireNonNull(clock, "clock is null");
        this.progress = requireNonNull(progress, "progress is null");
    }

    /**
     * Rebuilds the state of {@code config}'s journal and appends the entries unless {@code dryRun}. Without a standby
     * it opens the journal folder, refused while a supervisor holds its lock (which names the holder). With one
     * ({@code supervisor.ha.enabled}, decision 0062) it takes the pair's lease for its run ({@link RebuildLease}):
     * refused while a supervisor holds it (named), it takes the next fencing token, so that a supervisor started
     * meanwhile stays a standby, appends to that token's generation through the supervisors' journal code, and
     * releases the lease at the end (the standby then takes over at once from what it wrote).
     *
     * @throws IllegalArgumentException when the configuration cannot reach the bucket ({@code supervisor.s3.endpoint}
     *                                  unset)
     * @throws IllegalStateException    when a supervisor of the pair holds the lease
     */
    public static Result run(SupervisorConfig config, Loads loads, boolean dryRun, Clock clock,
                             Consumer<String> progress) throws IOException {
        requireNonNull(config, "config is null");
        Optional<String> refused = refusal(config);
        if (refused.isPresent()) {
            throw new IllegalArgumentException(refused.get());
        }
        SupervisorState state = new SupervisorState(config.console().historyDays());
        if (!config.ha().enabled()) {
            if (SharedDirLeadership.sharedLayout(config.journal().dir())) {
                throw new IllegalArgumentException(SupervisorConfig.JOURNAL_DIR + " " + config.journal().dir()
                        + " is shared by supervisors with a standby (fence-N files, generation-N journals): run"
                        + " rebuild-state with the pair's configuration (" + SupervisorConfig.HA_ENABLED + "=true)");
            }
            progress.accept("replaying journal " + config.journal().dir() + " (its lock keeps a supervisor off it)");
            try (Journal journal = state.replayJournal(config.journal().dir(), config.journal().keepSegments(),
                    true)) {
                return rebuild(config, state, journal, config.journal().dir().toString(), loads, dryRun, clock,
                        progress);
            }
        }
        // the lease is watched for a renewal a little longer than it lasts: a dead holder's expires meanwhile
        Duration wait = config.ha().lease().plus(config.ha().lease().dividedBy(2)).plus(config.ha().renew());
        try (RebuildLease lease = RebuildLease.take(config, LEASE_ID_PREFIX + Supervisor.hostName() + ":"
                + ProcessHandle.current().pid(), wait, progress)) {
            progress.accept("replaying journal " + lease.journal().location() + " (token " + lease.token()
                    + ": no supervisor of the pair can become active until the end of this run)");
            try (Journal journal = state.replayJournal(lease.journal(), config.journal().keepSegments(), true)) {
                journal.guard(lease::check);
                return rebuild(config, state, journal, lease.journal().location(), loads, dryRun, clock, progress);
            }
        }
    }

    private static Result rebuild(SupervisorConfig config, SupervisorState state, Journal journal, String location,
                                  Loads loads, boolean dryRun, Clock clock, Consumer<String> progress)
            throws IOException {
        progress.accept("journal at entry " + journal.lastSeq() + ": " + state.all().size() + " live, "
                + state.retired().size() + " retired, " + state.deleted().size() + " deleted datasets");
        try (S3CleanupStore store = S3CleanupStore.create(config.cleanup(), config.tls().s3TrustManagers())) {
            String name = config.s3Bucket();
            Bucket b = new Bucket() {
                @Override
                public List<CleanupStore.ListedObject> list() throws IOException {
                    return store.list(name);
                }

                @Override
                public StoredObject read(String key) throws IOException {
                    return store.read(name, key);
                }
            };
            Catalogue catalogue = config.catalogue().enabled() ? new RucioCatalogue(config.catalogue(), clock) : null;
            StateRebuild rebuild = new StateRebuild(state, b,
                    MessageValidator.forEndpoint(name, config.cleanup().s3Endpoint()), loads, catalogue, clock,
                    progress);
            List<JournalEvent> planned = rebuild.plan();
            long now = clock.millis();
            List<JournalEntry> entries;
            if (dryRun) {
                entries = new ArrayList<>();
                long seq = journal.lastSeq();
                for (JournalEvent e : planned) {
                    entries.add(new JournalEntry(++seq, now, e));
                }
            } else {
                entries = journal.append(planned, now);
            }
            entries.forEach(state::apply);
            return rebuild.result(location, !dryRun, state.lastSeq());
        }
    }

    /** Why a configuration cannot be rebuilt from (no S3 endpoint); empty when it can. */
    public static Optional<String> refusal(SupervisorConfig config) {
        if (!config.cleanup().enabled()) {
            return Optional.of(SupervisorConfig.S3_ENDPOINT + " is not set: rebuild-state reads the bucket "
                    + config.s3Bucket() + " through it");
        }
        return Optional.empty();
    }

    /** The entries that bring the state up to date, the last one {@code STATE_RECONCILED}. */
    List<JournalEvent> plan() throws IOException {
        long listedAt = clock.millis();
        progress.accept("listing the bucket");
        List<CleanupStore.ListedObject> objects = bucket.list();
        progress.accept(objects.size() + " objects in the bucket");
        Set<String> knownKeys = knownKeys();
        List<Adoption> adoptions = new ArrayList<>();
        long lastProgress = clock.millis();
        for (CleanupStore.ListedObject o : objects) {
            listed++;
            if (knownKeys.contains(o.key())) {
                known++;
            } else {
                examine(o).ifPresent(adoptions::add);
            }
            if (listed % 1000 == 0 || clock.millis() - lastProgress >= 5000) {
                lastProgress = clock.millis();
                progress.accept("objects: " + listed + " of " + objects.size() + " examined, " + known
                        + " named by the journal, " + adoptions.size() + " to record, " + undecidedObjects.size()
                        + " undecided");
            }
        }
        adoptions.sort(Comparator.comparingLong((Adoption a) -> a.info().timestamp()).thenComparing(Adoption::key));
        for (Adoption a : adoptions) {
            events.add(new JournalEvent.ObjectReported(MESSAGE_ID_PREFIX + a.key(), a.info()));
            adopted.computeIfAbsent(a.info().inputDsName(), n -> new LinkedHashMap<>()).put(a.info().url(), a.info());
            recorded++;
            changes.add("record object " + a.info().url() + " of dataset " + a.info().inputDsName());
        }
        progress.accept("objects: " + listed + " examined, " + known + " named by the journal, " + recorded
                + " recorded, " + ofFinished + " of finished datasets, " + undecidedObjects.size() + " undecided");
        Set<String> names = new LinkedHashSet<>();
        state.all().forEach(d -> names.add(d.name));
        names.addAll(adopted.keySet());
        state.deleted().forEach(t -> names.add(t.name()));
        List<Rebuilt> rebuilt = new ArrayList<>();
        for (String name : names) {
            checked++;
            checkLoads(name).ifPresent(rebuilt::add);
            if (checked % 100 == 0) {
                progress.accept("datasets: " + checked + " of " + names.size() + " compared with Kudu and HDFS");
            }
        }
        // in selection order, so that the current epoch ends as the newest load's
        rebuilt.sort(Comparator.comparingLong((Rebuilt r) -> r.signal().ts()).thenComparing(r -> r.signal().dataset()));
        for (Rebuilt r : rebuilt) {
            events.addAll(r.events());
            signals++;
            reports++;
            changes.add("dataset " + r.signal().dataset() + ": DONE as Kudu holds it (load " + r.signal().signalId()
                    + ", dspid " + r.signal().dspid() + ", epoch " + r.signal().epoch() + ")");
        }
        Set<String> done = new HashSet<>();
        rebuilt.forEach(r -> done.add(r.signal().dataset()));
        for (String name : names) {
            if (!done.contains(name)) {
                fileList(name);
            }
        }
        int floor = loads.maxDspid();
        String summary = recorded + " objects recorded, " + signals + " loads taken from Kudu, " + fileLists
                + " file lists from the catalogue, " + undecided.size() + " undecided";
        events.add(new JournalEvent.StateReconciled(listedAt, undecidedObjects, floor, summary));
        changes.add("reconciled: " + summary + "; dspid floor " + floor);
        this.floor = floor;
        this.listedAt = listedAt;
        return List.copyOf(events);
    }

    Result result(String journal, boolean written, long lastSeq) {
        return new Result(journal, written, lastSeq, listedAt, listed, known, recorded, ofFinished, checked, signals,
                reports, fileLists, floor, changes, undecided);
    }

    /** Keys of the bucket's objects that entries name: live datasets' objects, deleted datasets' left. */
    private Set<String> knownKeys() {
        Set<String> keys = new HashSet<>();
        for (TrackedDataset d : state.all()) {
            d.urls.forEach(u -> keys.add(key(u)));
        }
        for (DeletedDataset t : state.deleted()) {
            t.objectsLeft().forEach(u -> keys.add(key(u)));
        }
        return keys;
    }

    private static String key(String url) {
        int slash = url.indexOf('/', "s3://".length());
        int bucketEnd = slash < 0 ? -1 : url.indexOf('/', slash + 1);
        return bucketEnd < 0 ? url : url.substring(bucketEnd + 1);
    }

    private record Adoption(String key, ProducerInfo info) {
    }

    /** An object no entry names: to record, of a finished dataset, or undecided. */
    private Optional<Adoption> examine(CleanupStore.ListedObject o) {
        StoredObject stored;
        try {
            stored = bucket.read(o.key());
        } catch (IOException | RuntimeException e) {
            return undecidedObject(o.key(), "cannot be read as an SPB file: " + e.getMessage());
        }
        Map<String, String> m = stored.metadata();
        String dataset = m.get("inputdsname");
        if (dataset == null || m.get("uuid") == null) {
            return undecidedObject(o.key(), "no producer metadata (inputDsName, uuid): not stored by the producer");
        }
        SpbSummary s = stored.summary();
        if (!dataset.equals(s.inputDsName())) {
            return undecidedObject(o.key(), "its metadata names dataset " + dataset + " but its content "
                    + s.inputDsName());
        }
        long timestamp = parse(m.get("timestamp"), o.lastModified() == null ? 0 : o.lastModified().toEpochMilli());
        ProducerInfo info = new ProducerInfo(o.size() >= 0 ? o.size() : s.compressedBytes(), s.uncompressedBytes(),
                m.getOrDefault("version", "1"), s.taskID(), s.jobID(), s.startProcTime(), s.endProcTime(),
                s.inputDsName(), s.nevents(), s.nuevents(), s.guids().size(), m.get("uuid"), timestamp, m.get("url"),
                s.guids());
        String id = MESSAGE_ID_PREFIX + o.key();
        Inbound in = validator.producer(Json.write(new ProducerMessage(ProducerMessage.TYPE_OBJECT_STORED, timestamp,
                id, info)), id);
        if (in instanceof Inbound.Rejected r) {
            return undecidedObject(o.key(), "refused as its producer message would be: " + r.rejection().reason()
                    + ": " + r.rejection().detail());
        }
        if (!key(info.url()).equals(o.key())) {
            return undecidedObject(o.key(), "its metadata url " + info.url() + " names another object");
        }
        SupervisorState.Lookup found = state.lookup(dataset);
        if (found.retired().isPresent() || found.deleted().isPresent()) {
            ofFinished++;
            return Optional.empty(); // as a late message would be refused: an orphan, the cleanup deletes it
        }
        return Optional.of(new Adoption(o.key(), ((Inbound.ObjectStored) in).info()));
    }

    private Optional<Adoption> undecidedObject(String key, String reason) {
        undecidedObjects.add(key);
        undecided.add(new Undecided("object " + key, reason + "; kept by the cleanup"));
        return Optional.empty();
    }

    private static long parse(String text, long otherwise) {
        try {
            return text == null ? otherwise : Long.parseLong(text);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /** The entries that make a dataset DONE as Kudu holds it, with the signal they plan. */
    private record Rebuilt(ConsumerSignal signal, List<JournalEvent> events) {
    }

    /** Compares a dataset with its DATASETS row and HDFS file. */
    private Optional<Rebuilt> checkLoads(String name) throws IOException {
        Optional<LoadRow> found = loads.row(name);
        SupervisorState.Lookup lookup = state.lookup(name);
        if (lookup.deleted().isPresent()) {
            found.filter(r -> r.dspid() >= 0).ifPresent(r -> undecided.add(new Undecided("dataset " + name,
                    "deleted in the journal but Kudu DATASETS still holds it (dspid " + r.dspid() + ", " + r.state()
                            + "): finish it with 'supervisor delete-dataset --not-in-supervisor'")));
            return Optional.empty();
        }
        Optional<TrackedDataset> live = lookup.live();
        if (found.isEmpty()) {
            live.filter(d -> d.state == CollectionState.DONE).ifPresent(d -> undecided.add(new Undecided(
                    "dataset " + name, "DONE in the journal (load " + d.signal.signalId() + ") but not in Kudu"
                    + " DATASETS: deleted there? resignal it to load it again, or delete it")));
            return Optional.empty();
        }
        LoadRow row = found.get();
        if (!row.loaded()) {
            return Optional.empty(); // a load in progress or interrupted: the supervisor signals again, it replaces it
        }
        if (live.isPresent() && live.get().signalled() && live.get().signal.signalId().equals(row.loadId())) {
            TrackedDataset d = live.get();
            if (d.state == CollectionState.DONE) {
                return Optional.empty();
            }
            reports++;
            events.add(new JournalEvent.ReportReceived(doneReport(row, d.signal.objects().size())));
            changes.add("dataset " + name + ": " + d.state + " -> DONE as Kudu holds it (load " + row.loadId() + ")");
            return Optional.empty();
        }
        Optional<LoadFile> file = loads.file(name);
        List<SignalObject> objects = new ArrayList<>();
        if (file.isEmpty() || !file.get().signalId().equals(row.loadId())) {
            undecided.add(new Undecided("dataset " + name, "Kudu holds load " + row.loadId() + " but "
                    + (file.isEmpty() ? "HDFS has no file of it" : "its HDFS file " + file.get().path()
                    + " is of signal " + file.get().signalId()) + ": recorded DONE without the list of objects it"
                    + " read; its HDFS file cannot be re-read"));
        } else {
            objects = signalObjects(name, file.get());
        }
        long expected = objects.stream().mapToLong(SignalObject::expectedEvents).sum();
        ConsumerSignal signal = new ConsumerSignal(ConsumerSignal.TYPE, row.loadId(), name,
                DatasetName.parse(name).container(), row.dspid(), row.epoch(), objects,
                objects.isEmpty() ? row.events() : expected, row.signalTs() > 0 ? row.signalTs() : clock.millis());
        return Optional.of(new Rebuilt(signal, List.of(new JournalEvent.SignalPlanned(signal),
                new JournalEvent.SignalSent(name, row.loadId()),
                new JournalEvent.ReportReceived(doneReport(row, objects.size())))));
    }

    /** The signal's objects as the file's footer lists them, sizes from the recorded objects. */
    private List<SignalObject> signalObjects(String name, LoadFile file) {
        Map<String, List<LoadFileEntry>> byObject = new LinkedHashMap<>();
        file.files().forEach(f -> byObject.computeIfAbsent(f.object(), o -> new ArrayList<>()).add(f));
        Map<String, Candidate> candidates = new LinkedHashMap<>();
        state.lookup(name).live().ifPresent(d -> d.candidates.forEach(c -> candidates.put(c.url(), c)));
        Map<String, ProducerInfo> infos = adopted.getOrDefault(name, Map.of());
        List<SignalObject> objects = new ArrayList<>();
        for (Map.Entry<String, List<LoadFileEntry>> e : byObject.entrySet()) {
            Candidate c = candidates.get(e.getKey());
            ProducerInfo i = infos.get(e.getKey());
            long size = c != null ? c.size() : i != null ? i.size() : 0;
            long usize = c != null ? c.usize() : i != null ? i.usize() : 0;
            objects.add(new SignalObject(e.getKey(), size, usize, e.getValue().stream().map(LoadFileEntry::guid)
                    .toList(), e.getValue().stream().mapToLong(LoadFileEntry::events).sum()));
        }
        return objects;
    }

    private ConsumerReport doneReport(LoadRow row, int objects) {
        return new ConsumerReport(ConsumerReport.TYPE, row.loadId(), row.dataset(), REPORTER, ConsumerReport.DONE,
                row.hdfsPath(), row.events(), row.events(), 0, objects, 0, 0, null, clock.millis(), false);
    }

    /** A dataset collecting without a file list gets the catalogue's; else it is undecided. */
    private void fileList(String name) throws IOException {
        Optional<TrackedDataset> live = state.lookup(name).live();
        boolean isNew = live.isEmpty() && adopted.containsKey(name);
        if (!isNew && (live.isEmpty() || live.get().manifest != null || live.get().signalled())) {
            return;
        }
        if (catalogue != null) {
            Optional<List<Catalogue.File>> files = catalogue.files(DatasetName.parse(name));
            if (files.isPresent() && !files.get().isEmpty()) {
                events.add(new JournalEvent.ManifestRegistered(new DatasetManifest(DatasetManifest.TYPE, name,
                        files.get().stream().map(f -> new DatasetManifest.ManifestFile(f.guid(), f.events()))
                                .toList())));
                fileLists++;
                changes.add("dataset " + name + ": file list of " + files.get().size() + " files from the catalogue");
                return;
            }
        }
        undecided.add(new Undecided("dataset " + name, "no file list (manifest" + (catalogue == null
                ? ", and no catalogue configured" : " or catalogue entry") + "): it collects until one is registered"
                + " ('supervisor register-manifest' again, if it was registered after the backup)"));
    }
}
