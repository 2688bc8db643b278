package org.eventindex.deploy.differential;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.eventindex.consolidated.ConsolidatedFileReader;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.consumer.Consumer;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.consumer.KuduIngest;
import org.eventindex.consumer.S3ObjectFetcher;
import org.eventindex.gen.RandomCase;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.lookup.EventKey;
import org.eventindex.lookup.EventLookup;
import org.eventindex.lookup.LookupFilter;
import org.eventindex.lookup.LookupMatch;
import org.eventindex.lookup.LookupResult;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.SignalFile;
import org.eventindex.message.SignalObject;
import org.eventindex.names.ObjectKey;
import org.eventindex.names.PoolToken;
import org.eventindex.names.Printable;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * The differential check of issue 30, "what the producer accepts, the consumer and the loader must load", on real
 * components: the producer jar as a process, an S3 server ({@link EmbeddedS3}), HDFS ({@link EmbeddedHdfs}), Kudu
 * ({@link EmbeddedKudu}) and a consumer in this JVM with its real S3 fetcher, HDFS client and Kudu load.
 * <p>
 * For each {@link RandomCase}: (a) the producer's dry run says accepted or refused ({@link #produce}); (b) the object is
 * stored under the producer's key with the {@code sha256} user metadata it would set (a refused one under the key of
 * its job and a fixed uuid); (c) the consumer gets the signal the supervisor would send for it (for a refused object,
 * with the file counts and run ranges the experiment's sender would report), as the JSON body of the consumer queue,
 * and handles it; (d) {@link #check} then
 * holds the outcome against the property:
 * <ul>
 *   <li>accepted ⇒ DONE, and the dataset loaded exactly ({@link ExpectedDataset}): every row of the Parquet file on
 *       HDFS, every EVENTS/MCEVENTS and DUPLICATEDEVENTS row column by column, DATASETS, TRIGGERCOUNT, and events
 *       found by the event lookup with their GUIDs (one carrying an older-form token when the dataset has one);</li>
 *   <li>refused ⇒ FAILED, permanent, cause input, with the producer's reason (offset, problem and detail) in the
 *       consumer's, and nothing of the dataset in HDFS or Kudu.</li>
 * </ul>
 * Also checked, and reported the same way: that the producer's verdict is what the generator intended (a case made
 * past a rule is refused with the problem the rule names, one within is accepted), and that an accepted object's
 * message says what the object holds (per file count, unique count and run ranges), which the consumer relies on,
 * and that the supervisor's validation of producer messages lets that message through ({@link SupervisorValidation}).
 */
public final class ContentDifferential implements AutoCloseable {
    static final String BUCKET = "eventindex";
    static final String HDFS_ROOT = "/eventindex/datasets";
    static final String TABLE_PREFIX = "diff_";
    static final int EPOCH = KuduTablesConfig.FIRST_EPOCH;
    /** dspid of case 0; case n gets this + n. */
    static final int FIRST_DSPID = 1000;

    /**
     * The outcome of one case.
     *
     * @param url         the object the signal named
     * @param violations  what went against the property (or the generator's intent), each in one line; empty: ok
     * @param consumerTook the consumer's handling of the signal and the checks after it
     */
    public record CaseResult(RandomCase rc, ProducerVerdict producer, ConsumerReport report, String url,
                             List<String> violations, Duration consumerTook) {
        public CaseResult {
            violations = List.copyOf(violations);
        }

        public boolean ok() {
            return violations.isEmpty();
        }
    }

    private final Path work;
    private final Path producerJar;
    private final EmbeddedKudu kudu;
    private final EmbeddedS3 s3;
    private final EmbeddedHdfs hdfs;
    private final S3Client s3Client;
    private final S3ObjectFetcher fetcher;
    private final KuduIngest ingest;
    private final Consumer consumer;
    private final KuduTablesConfig tables = new KuduTablesConfig(TABLE_PREFIX, 2, 1);
    private final SupervisorValidation supervisor = new SupervisorValidation(BUCKET);
    private EventLookup lookup;
    private final List<AutoCloseable> owned = new ArrayList<>();

    private ContentDifferential(Path work, Path producerJar) throws IOException {
        this.work = work;
        this.producerJar = producerJar;
        boolean ok = false;
        try {
            // Kudu first: its test certificates need JSSE constraints that HDFS would otherwise fix first
            kudu = own(EmbeddedKudu.start(work.resolve("kudu"), 1));
            s3 = own(EmbeddedS3.start(work.resolve("s3"), "differential", "differential-secret"));
            s3.createBucket(BUCKET);
            hdfs = own(EmbeddedHdfs.start(work.resolve("hdfs")));
            s3Client = own(s3Client(s3));
            fetcher = own(S3ObjectFetcher.connect(s3.endpoint(), s3.accessKey(), s3.secretKey(), 2));
            FileContext fc = FileContext.getFileContext(hdfs.uri(), Consumer.hdfsClientConf(hdfs.conf()));
            ingest = new KuduIngest(kudu.client(), tables, hdfs.fs(), Clock.systemUTC());
            consumer = own(new Consumer(consumerConfig(), new Consumer.Services(fetcher, fc, ingest, report -> { }),
                    Clock.systemUTC()));
            Files.createDirectories(work.resolve("objects"));
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    /** Starts Kudu, S3 and HDFS under {@code work} and a consumer on them. */
    public static ContentDifferential start(Path work, Path producerJar) throws IOException {
        requireNonNull(work, "work is null");
        if (!Files.isRegularFile(requireNonNull(producerJar, "producerJar is null"))) {
            throw new IllegalArgumentException("producer jar not found at " + producerJar
                    + " (build it with 'mvn -DskipTests install', or set -Dei.producer.jar)");
        }
        Files.createDirectories(work);
        return new ContentDifferential(work, producerJar);
    }

    private <T extends AutoCloseable> T own(T c) {
        owned.add(0, c);
        return c;
    }

    private ConsumerConfig consumerConfig() throws IOException {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "differential");
        p.setProperty(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(ConsumerConfig.S3_BUCKET, BUCKET);
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.HDFS_ROOT, HDFS_ROOT);
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.KUDU_TABLE_PREFIX, TABLE_PREFIX);
        p.setProperty(ConsumerConfig.KUDU_BUCKETS, Integer.toString(tables.hashBuckets()));
        p.setProperty(ConsumerConfig.KUDU_REPLICAS, Integer.toString(tables.replicas()));
        p.setProperty(ConsumerConfig.FETCH_THREADS, "2");
        p.setProperty(ConsumerConfig.SPOOL_DIR, work.resolve("spool").toAbsolutePath().toString());
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        return ConsumerConfig.fromProperties(p, Map.of(ConsumerConfig.ENV_S3_ACCESS_KEY, s3.accessKey(),
                ConsumerConfig.ENV_S3_SECRET_KEY, s3.secretKey()));
    }

    @SuppressWarnings("deprecation")
    private static S3Client s3Client(EmbeddedS3 s3) {
        return S3Client.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(),
                        s3.secretKey())))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(ApacheHttpClient.builder()).build();
    }

    /** Where the case's SPB file, and the producer's stdout and stderr next to it, are kept. */
    Path objectFile(RandomCase rc) {
        return work.resolve("objects").resolve("case-" + rc.number() + ".ei.spb");
    }

    /** (a) Writes the case's object to a file and runs the producer's dry run on it. Thread-safe. */
    public ProducerVerdict produce(RandomCase rc) throws IOException, InterruptedException {
        Path file = objectFile(rc);
        Files.write(file, rc.spb());
        return ProducerVerdict.run(producerJar, file, s3.endpoint(), BUCKET);
    }

    /** (b) to (d) for a case the producer has judged; one case at a time. */
    public CaseResult check(RandomCase rc, ProducerVerdict verdict) {
        long t0 = System.nanoTime();
        List<String> v = new ArrayList<>();
        String url = null;
        ConsumerReport report = null;
        try {
            intent(rc, verdict, v);
            if (!verdict.accepted() && !verdict.refused()) {
                v.add("the producer exited " + verdict.exitCode() + ", neither accepted (0) nor refused (2): "
                        + Printable.of(verdict.stderr(), 2000));
                return new CaseResult(rc, verdict, null, null, v, Duration.ofNanos(System.nanoTime() - t0));
            }
            ExpectedDataset expected = new ExpectedDataset(rc);
            if (verdict.accepted()) {
                producerClaims(rc, verdict.message().data(), expected, v);
                String rejected = supervisor.rejection(verdict.message());
                if (rejected != null) {
                    v.add("supervisor: it rejects the message of an object the producer accepted, so no consumer is"
                            + " ever signalled for it: " + Printable.of(rejected, 2000));
                }
            }
            ConsumerSignal signal = signal(rc, verdict, expected);
            url = signal.objects().get(0).url();
            store(rc, verdict, org.eventindex.message.S3ObjectUrl.parse(url).key());
            // as the signal travels: JSON on the consumer queue (the event ranges as unsigned decimals)
            report = consumer.handler().handle(Json.write(signal), "differential-" + rc.number());
            if (!signal.signalId().equals(report.signalId())) {
                v.add("consumer: the report is for signal " + report.signalId() + ", not " + signal.signalId() + ": "
                        + Printable.of(report.reason(), 1000));
            }
            if (verdict.accepted()) {
                loaded(rc, signal, report, expected, v);
            } else {
                refused(rc, signal, report, verdict, expected, v);
            }
        } catch (Exception e) {
            v.add("the check itself failed: " + e + stackTop(e));
        }
        return new CaseResult(rc, verdict, report, url, v, Duration.ofNanos(System.nanoTime() - t0));
    }

    // --- (a') the producer against the generator's intent and the object --------------------------------------------

    private static void intent(RandomCase rc, ProducerVerdict verdict, List<String> v) {
        if (verdict.accepted() && rc.past()) {
            v.add("rule: made past a limit or rule (" + rc.expectedProblem() + ": " + rc.detail()
                    + "), but the producer accepted it");
        } else if (verdict.refused() && !rc.past()) {
            v.add("rule: made within the limits and rules (" + rc.detail() + "), but the producer refused it: "
                    + Printable.of(verdict.stderr().strip(), 2000));
        } else if (verdict.refused() && !rc.expectedProblem().name().equals(verdict.problem())) {
            v.add("rule: made past a rule as " + rc.expectedProblem() + " (" + rc.detail() + "), but the producer"
                    + " refused it as " + verdict.problem() + ": " + Printable.of(verdict.stderr().strip(), 2000));
        }
    }

    /** The accepted object's message must say what the object holds: the consumer compares the two. */
    private static void producerClaims(RandomCase rc, ProducerInfo info, ExpectedDataset expected, List<String> v) {
        List<String> d = new ArrayList<>();
        same(d, "inputDsName", rc.dataset(), info.inputDsName());
        same(d, "taskID", rc.header().getTaskID(), info.taskID());
        same(d, "jobID", rc.header().getJobID(), info.jobID());
        same(d, "size", (long) rc.spb().length, info.size());
        same(d, "usize", rc.uncompressedBytes(), info.usize());
        same(d, "nevents", rc.events(), info.nevents());
        same(d, "nfiles", rc.files().size(), info.nfiles());
        same(d, "startProcTime", rc.header().getStartProcTime(), info.startProcTime());
        long nuevents = 0;
        List<GuidInfo> guids = info.guids() == null ? List.of() : info.guids();
        same(d, "guids", rc.files().size(), guids.size());
        for (int i = 0; i < Math.min(guids.size(), rc.files().size()); i++) {
            RandomCase.InputFile f = rc.files().get(i);
            GuidInfo g = guids.get(i);
            String at = "guids[" + i + "].";
            same(d, at + "guid", f.guid(), g.guid());
            same(d, at + "fileno", i, g.fileno());
            same(d, at + "nevents", (long) f.events().size(), g.nevents());
            long unique = expected.uniqueEvents(f);
            nuevents += unique;
            same(d, at + "nuevents", unique, g.nuevents());
            same(d, at + "AMITag", f.begin().getAMITag(), g.amiTag());
            same(d, at + "trigStream", f.begin().getTrigStream(), g.trigStream());
            same(d, at + "projName", f.begin().getProjName(), g.projName());
            same(d, at + "fileStartProcTime", f.begin().getStartProcTime(), g.fileStartProcTime());
            same(d, at + "fileEndProcTime", f.endProcTime(), g.fileEndProcTime());
            same(d, at + "runevtRanges", expected.ranges(f), g.runevtRanges() == null ? Map.of()
                    : new LinkedHashMap<>(g.runevtRanges()));
        }
        same(d, "nuevents", nuevents, info.nuevents());
        if (!d.isEmpty()) {
            v.add("producer message: it does not say what the object holds: " + String.join("; ", d));
        }
    }

    // --- (b) and (c): the object in S3 and the signal -------------------------------------------------------------

    /** The uuid of a refused object's key (the producer chose none): fixed per case. */
    static String uuidOf(RandomCase rc) {
        return UUID.nameUUIDFromBytes(("differential " + rc.id()).getBytes(StandardCharsets.UTF_8)).toString()
                .replace("-", "");
    }

    private ConsumerSignal signal(RandomCase rc, ProducerVerdict verdict, ExpectedDataset expected) {
        String url;
        long size = rc.spb().length;
        long usize;
        List<SignalFile> files;
        if (verdict.accepted()) {
            ProducerInfo info = verdict.message().data();
            url = info.url();
            size = info.size();
            usize = info.usize();
            files = new ArrayList<>();
            List<GuidInfo> claims = new ArrayList<>(info.guids());
            // as the supervisor orders an object's claims
            claims.sort(java.util.Comparator.comparingInt(GuidInfo::fileno).thenComparing(GuidInfo::guid));
            for (GuidInfo g : claims) {
                files.add(SignalFile.of(g));
            }
        } else {
            ObjectKey key = ObjectKey.of(rc.header().getTaskID(), rc.header().getJobID(), uuidOf(rc));
            url = "s3://" + s3.endpoint().getHost() + ":" + s3.endpoint().getPort() + "/" + BUCKET + "/" + key.key();
            usize = rc.uncompressedBytes();
            files = expected.claims();
        }
        List<String> guids = files.stream().map(SignalFile::guid).toList();
        long events = files.stream().mapToLong(SignalFile::nevents).sum();
        SignalObject object = new SignalObject(url, size, usize, guids, events, files);
        String id = UUID.nameUUIDFromBytes(("differential\n" + rc.dataset() + "\n" + url + "\t" + String.join(",",
                guids)).getBytes(StandardCharsets.UTF_8)).toString();
        return new ConsumerSignal(ConsumerSignal.TYPE, id, rc.dataset(), expected.name().container(),
                FIRST_DSPID + rc.number(), EPOCH, List.of(object), events, System.currentTimeMillis());
    }

    private void store(RandomCase rc, ProducerVerdict verdict, String key) {
        Map<String, String> metadata = new LinkedHashMap<>();
        if (verdict.accepted()) {
            metadata.putAll(verdict.message().data().objectMetadata());
            metadata.put("sha256", verdict.sha256());
        } else {
            metadata.put("sha256", sha256(rc.spb()));
        }
        s3Client.putObject(b -> b.bucket(BUCKET).key(key).metadata(metadata), RequestBody.fromBytes(rc.spb()));
    }

    // --- (d) the property --------------------------------------------------------------------------------------------

    private void loaded(RandomCase rc, ConsumerSignal signal, ConsumerReport report, ExpectedDataset expected,
                        List<String> v) throws IOException {
        expected.rows().forEach(expected::columns);
        for (String finding : expected.parserFindings()) {
            v.add("loader parser: " + finding);
        }
        if (!ConsumerReport.DONE.equals(report.status())) {
            v.add("consumer: the producer accepted the object, but the report is " + report.status() + " ("
                    + report.cause() + ", " + (report.permanent() ? "permanent" : "transient") + "): "
                    + Printable.of(report.reason(), 3000));
            return;
        }
        List<String> d = new ArrayList<>();
        same(d, "eventsWritten", expected.events(), report.eventsWritten());
        same(d, "eventsLoaded", expected.unique(), report.eventsLoaded());
        same(d, "duplicateEvents", expected.duplicates(), report.duplicateEvents());
        org.apache.hadoop.fs.Path file = finalPath(expected);
        same(d, "hdfsPath", file.toString(), report.hdfsPath());
        if (!d.isEmpty()) {
            v.add("report: " + String.join("; ", d));
        }
        List<String> left = hdfsFiles(expected);
        if (!left.equals(List.of(file.getName()))) {
            v.add("hdfs: the container folder holds " + left + " for the dataset, expected only " + file.getName());
        }
        parquet(rc, file, expected, v);
        kudu(signal, expected, v);
        lookups(expected, v);
    }

    private void refused(RandomCase rc, ConsumerSignal signal, ConsumerReport report, ProducerVerdict verdict,
                         ExpectedDataset expected, List<String> v) throws IOException {
        String reason = verdict.spbReason();
        if (reason == null) {
            v.add("producer: refused without an SPB reason ('" + ProducerVerdict.SPB_REASON + "...'): "
                    + Printable.of(verdict.stderr().strip(), 2000));
        }
        if (!ConsumerReport.FAILED.equals(report.status())) {
            v.add("consumer: the producer refused the object (" + reason + "), but the report is " + report.status()
                    + " with " + report.eventsWritten() + " events written");
        } else {
            List<String> d = new ArrayList<>();
            if (!report.permanent()) {
                d.add("not permanent");
            }
            if (!ConsumerReport.CAUSE_INPUT.equals(report.cause())) {
                d.add("cause " + report.cause() + ", not input");
            }
            if (reason != null && (report.reason() == null || !report.reason().contains(reason))) {
                d.add("its reason does not hold the producer's: expected '" + reason + "' in '"
                        + Printable.of(report.reason(), 3000) + "'");
            }
            if (!d.isEmpty()) {
                v.add("consumer: FAILED as it should, but " + String.join("; ", d));
            }
        }
        List<String> left = hdfsFiles(expected);
        if (!left.isEmpty()) {
            v.add("hdfs: the refused dataset left " + left);
        }
        int dspid = signal.dspid();
        for (String table : List.of(tables.eventsTable(), tables.mcEventsTable(), tables.duplicatedEventsTable())) {
            long n = count(table, KuduSchemas.DSPID, dspid);
            if (n > 0) {
                v.add("kudu: the refused dataset left " + n + " rows in " + table);
            }
        }
        long counts = count(tables.triggerCountTable(), KuduSchemas.DATASET_ID, dspid);
        long overlaps = count(tables.eventsOverlapTable(), KuduSchemas.DS1, dspid)
                + count(tables.eventsOverlapTable(), KuduSchemas.DS2, dspid);
        if (counts + overlaps > 0) {
            v.add("kudu: the refused dataset left " + counts + " TRIGGERCOUNT and " + overlaps + " EVENTSOVERLAP rows");
        }
        if (datasetsRow(expected) != null) {
            v.add("kudu: the refused dataset has a DATASETS row");
        }
    }

    // --- HDFS and the consolidated file ----------------------------------------------------------------------------

    private org.apache.hadoop.fs.Path finalPath(ExpectedDataset expected) {
        return new org.apache.hadoop.fs.Path(HDFS_ROOT + "/" + expected.name().container() + "/"
                + expected.name() + ".parquet");
    }

    /** The files of the dataset's container folder that belong to it (the file, temp files). */
    private List<String> hdfsFiles(ExpectedDataset expected) throws IOException {
        FileSystem fs = hdfs.fs();
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(HDFS_ROOT + "/" + expected.name().container());
        if (!fs.exists(dir)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (FileStatus s : fs.listStatus(dir)) {
            if (s.getPath().getName().contains(expected.name().toString())) {
                out.add(s.getPath().getName());
            }
        }
        out.sort(null);
        return out;
    }

    private void parquet(RandomCase rc, org.apache.hadoop.fs.Path file, ExpectedDataset expected, List<String> v) {
        List<ExpectedDataset.Row> rows = expected.rows();
        int i = 0;
        try (ConsolidatedFileReader r = new ConsolidatedFileReader(HadoopInputFile.fromPath(file, hdfs.conf()),
                file.toString())) {
            metadata(rc, r.metadata(), expected, v);
            ConsolidatedFileReader.Row row;
            int shown = 0;
            while ((row = r.next()) != null) {
                if (i < rows.size() && shown < 3) {
                    ExpectedDataset.Row want = rows.get(i);
                    String diff = !want.guid().equals(row.guid()) ? "GUID " + row.guid() + ", expected " + want.guid()
                            : java.util.Arrays.equals(want.event().toByteArray(), row.event().toByteArray()) ? null
                            : fieldDiff(want.event(), row.event());
                    if (diff != null) {
                        v.add("parquet: row " + i + " (expected event " + key(want.event()) + " of GUID " + want.guid()
                                + "): " + diff);
                        shown++;
                    }
                }
                i++;
            }
        } catch (IOException | RuntimeException e) {
            v.add("parquet: " + file + " cannot be read back after " + i + " rows: " + e);
            return;
        }
        if (i != rows.size()) {
            v.add("parquet: " + i + " rows, expected " + rows.size());
            return;
        }
        references(file, expected, v);
    }

    /**
     * The file's per-stage reference columns ({@code db_raw}, {@code db_esd}, {@code db_aod}, {@code db}), read with
     * parquet-mr's own generic reader, against the GUIDs the tokens name (as the Kudu {@code db*} columns).
     */
    private void references(org.apache.hadoop.fs.Path file, ExpectedDataset expected, List<String> v) {
        String[][] columns = {{ConsolidatedSchema.DB_RAW, KuduSchemas.DBRAW},
            {ConsolidatedSchema.DB_ESD, KuduSchemas.DBESD}, {ConsolidatedSchema.DB_AOD, KuduSchemas.DBAOD},
            {ConsolidatedSchema.DB, KuduSchemas.DB}};
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(hdfs.conf());
        StringBuilder projection = new StringBuilder("message refs {");
        for (String[] c : columns) {
            projection.append(" optional binary ").append(c[0]).append(" (STRING);");
        }
        conf.set(ReadSupport.PARQUET_READ_SCHEMA, projection.append(" }").toString());
        int i = 0;
        int shown = 0;
        try (ParquetReader<Group> r = ParquetReader.builder(new GroupReadSupport(), file).withConf(conf).build()) {
            for (Group g = r.read(); g != null && i < expected.rows().size(); g = r.read(), i++) {
                Map<String, Object> want = expected.columns(expected.rows().get(i));
                List<String> d = new ArrayList<>();
                for (String[] c : columns) {
                    String got = g.getFieldRepetitionCount(c[0]) == 0 ? null : g.getString(c[0], 0);
                    if (!Objects.equals(want.get(c[1]), got)) {
                        d.add(c[0] + " " + shown(got) + ", expected " + shown(want.get(c[1])));
                    }
                }
                if (!d.isEmpty() && shown++ < 3) {
                    v.add("parquet: row " + i + " (event " + key(expected.rows().get(i).event()) + "): "
                            + String.join(", ", d));
                }
            }
        } catch (IOException | RuntimeException e) {
            v.add("parquet: the reference columns of " + file + " cannot be read with parquet-mr after " + i
                    + " rows: " + e);
        }
    }

    private static void metadata(RandomCase rc, ConsolidatedMetadata m, ExpectedDataset expected, List<String> v) {
        List<String> d = new ArrayList<>();
        same(d, "dataset", rc.dataset(), m.dataset());
        same(d, "events", expected.events(), m.events());
        same(d, "simulation", expected.simulationTable(), m.simulation());
        same(d, "files", rc.files().size(), m.files().size());
        for (int i = 0; i < Math.min(rc.files().size(), m.files().size()); i++) {
            RandomCase.InputFile f = rc.files().get(i);
            ConsolidatedMetadata.FileInfo fi = m.files().get(i);
            String at = "files[" + i + "].";
            same(d, at + "guid", f.guid(), fi.guid());
            same(d, at + "startProcTime", f.begin().getStartProcTime(), fi.startProcTime());
            same(d, at + "amiTag", f.begin().getAMITag(), fi.amiTag());
            same(d, at + "trigStream", f.begin().getTrigStream(), fi.trigStream());
            same(d, at + "projName", f.begin().getProjName(), fi.projName());
            same(d, at + "endProcTime", f.endProcTime(), fi.endProcTime());
            same(d, at + "nentries", (long) f.events().size(), fi.nentries());
            List<ConsolidatedMetadata.MenuInfo> menus = new ArrayList<>();
            for (RandomCase.Menu menu : f.menus()) {
                TriggerMenu_p1 t = menu.menu();
                menus.add(new ConsolidatedMetadata.MenuInfo(Integer.toUnsignedLong(t.getSMK()),
                        Integer.toUnsignedLong(t.getL1PSK()), Integer.toUnsignedLong(t.getHLTPSK()), t.getL1Menu(),
                        t.hasL2Menu() ? t.getL2Menu() : null, t.hasEFMenu() ? t.getEFMenu() : null,
                        t.hasHLTMenu() ? t.getHLTMenu() : null));
            }
            same(d, at + "menus", menus, m.menusOf(fi));
        }
        if (!d.isEmpty()) {
            v.add("parquet footer: " + String.join("; ", d));
        }
    }

    // --- Kudu -------------------------------------------------------------------------------------------------------

    private void kudu(ConsumerSignal signal, ExpectedDataset expected, List<String> v) throws KuduException {
        int dspid = signal.dspid();
        Map<String, Object> ds = datasetsRow(expected);
        if (ds == null) {
            v.add("kudu: no DATASETS row for " + expected.name());
            return;
        }
        List<String> d = new ArrayList<>();
        same(d, "state", "LOADED", ds.get(KuduSchemas.STATE));
        same(d, "dspid", dspid, ds.get(KuduSchemas.DSPID));
        same(d, "rgid", EPOCH, ds.get(KuduSchemas.RGID));
        same(d, "load_id", signal.signalId(), ds.get(KuduSchemas.LOAD_ID));
        same(d, "count_events", expected.events(), ds.get(KuduSchemas.COUNT_EVENTS));
        same(d, "num_duplicates", expected.duplicates(), ds.get(KuduSchemas.NUM_DUPLICATES));
        same(d, "uniq_dupl_events", expected.uniqDupl(), ds.get(KuduSchemas.UNIQ_DUPL_EVENTS));
        same(d, "smk", expected.smk(), ds.get(KuduSchemas.SMK));
        same(d, "signal_ts", signal.ts(), ds.get(KuduSchemas.SIGNAL_TS));
        Object path = ds.get(KuduSchemas.HDFS_PATH);
        if (path == null || !path.toString().endsWith(finalPath(expected).toString())) {
            d.add("hdfs_path " + path + ", expected ..." + finalPath(expected));
        }
        if (!d.isEmpty()) {
            v.add("kudu DATASETS: " + String.join("; ", d));
        }
        long insertStart = ds.get(KuduSchemas.INSERT_START) instanceof Long l ? l : 0;

        String eventTable = expected.simulationTable() ? tables.mcEventsTable() : tables.eventsTable();
        String otherTable = expected.simulationTable() ? tables.eventsTable() : tables.mcEventsTable();
        long other = count(otherTable, KuduSchemas.DSPID, dspid);
        if (other > 0) {
            v.add("kudu: " + other + " rows of the dataset in " + otherTable + ", expected all in " + eventTable);
        }
        Map<String, Map<String, Object>> firsts = new TreeMap<>();
        Map<String, Map<String, Object>> dups = new TreeMap<>();
        for (ExpectedDataset.Row r : expected.rows()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put(KuduSchemas.DSPID, dspid);
            row.put(KuduSchemas.EVENTNUMBER, r.event().getEventNumber());
            row.put(KuduSchemas.RGID, EPOCH);
            if (r.occurrence() == 1) {
                row.putAll(expected.columns(r));
                firsts.put(Long.toUnsignedString(r.event().getEventNumber()), row);
            } else {
                long time = insertStart + r.occurrence() - 2;
                row.put(KuduSchemas.INSERTION_TIME, time);
                row.putAll(expected.columns(r));
                dups.put(Long.toUnsignedString(r.event().getEventNumber()) + " @" + time, row);
            }
        }
        compareRows(eventTable, firsts, rows(eventTable, dspid, false), v);
        compareRows(tables.duplicatedEventsTable(), dups, rows(tables.duplicatedEventsTable(), dspid, true), v);

        Map<Long, Long> pairs = expected.triggerPairs();
        Map<Long, Long> stored = new TreeMap<>();
        for (Map<String, Object> row : scan(tables.triggerCountTable(), KuduSchemas.DATASET_ID, dspid)) {
            stored.put((long) (Integer) row.get(KuduSchemas.TRIG1) << 32 | (Integer) row.get(KuduSchemas.TRIG2),
                    (Long) row.get(KuduSchemas.COUNT));
        }
        if (!pairs.equals(stored)) {
            List<String> diff = new ArrayList<>();
            for (Long k : union(pairs.keySet(), stored.keySet())) {
                if (!Objects.equals(pairs.get(k), stored.get(k)) && diff.size() < 5) {
                    diff.add("(" + (k >>> 32) + ", " + (k & 0xFFFFFFFFL) + "): " + stored.get(k) + ", expected "
                            + pairs.get(k));
                }
            }
            v.add("kudu TRIGGERCOUNT: " + stored.size() + " pairs, expected " + pairs.size() + "; " + diff);
        }
    }

    private static void compareRows(String table, Map<String, Map<String, Object>> expected,
                                    Map<String, Map<String, Object>> actual, List<String> v) {
        List<String> d = new ArrayList<>();
        for (String k : union(expected.keySet(), actual.keySet())) {
            Map<String, Object> want = expected.get(k);
            Map<String, Object> got = actual.get(k);
            if (want == null) {
                d.add("event " + k + " is there but should not be");
            } else if (got == null) {
                d.add("event " + k + " is missing");
            } else {
                List<String> cols = new ArrayList<>();
                for (String col : union(want.keySet(), got.keySet())) {
                    if (!Objects.equals(want.get(col), got.get(col))) {
                        cols.add(col + " " + shown(got.get(col)) + ", expected " + shown(want.get(col)));
                    }
                }
                if (!cols.isEmpty()) {
                    d.add("event " + k + ": " + String.join(", ", cols));
                }
            }
            if (d.size() >= 3) {
                break;
            }
        }
        if (!d.isEmpty()) {
            v.add("kudu " + table + " (" + actual.size() + " rows, expected " + expected.size() + "): "
                    + String.join("; ", d));
        }
    }

    /** The dataset's rows of an event table by event number (and insertion time for duplicates), every column. */
    private Map<String, Map<String, Object>> rows(String table, int dspid, boolean duplicates) throws KuduException {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        for (Map<String, Object> row : scan(table, KuduSchemas.DSPID, dspid)) {
            String k = Long.toUnsignedString((Long) row.get(KuduSchemas.EVENTNUMBER));
            if (duplicates) {
                k += " @" + row.get(KuduSchemas.INSERTION_TIME);
            }
            // null columns are absent from the expected maps
            row.values().removeIf(Objects::isNull);
            out.put(k, row);
        }
        return out;
    }

    private Map<String, Object> datasetsRow(ExpectedDataset expected) throws KuduException {
        if (!kudu.client().tableExists(tables.datasetsTable())) {
            return null;
        }
        KuduTable t = kudu.client().openTable(tables.datasetsTable());
        Schema s = t.getSchema();
        var n = expected.name();
        KuduScanner scanner = kudu.client().newScannerBuilder(t)
                .addPredicate(eq(s, KuduSchemas.RUNNUMBER, n.runNumber()))
                .addPredicate(eq(s, KuduSchemas.PROJECT, n.project()))
                .addPredicate(eq(s, KuduSchemas.STREAMNAME, n.stream()))
                .addPredicate(eq(s, KuduSchemas.PRODSTEP, n.prodStep()))
                .addPredicate(eq(s, KuduSchemas.DATATYPE, n.dataType()))
                .addPredicate(eq(s, KuduSchemas.VERSION, n.version() + n.suffix()))
                .build();
        List<Map<String, Object>> rows = drain(scanner, s);
        return rows.isEmpty() ? null : rows.get(0);
    }

    private long count(String table, String column, int value) throws KuduException {
        return scan(table, column, value).size();
    }

    private List<Map<String, Object>> scan(String table, String column, int value) throws KuduException {
        if (!kudu.client().tableExists(table)) {
            return List.of();
        }
        KuduTable t = kudu.client().openTable(table);
        Schema s = t.getSchema();
        return drain(kudu.client().newScannerBuilder(t).addPredicate(eq(s, column, value)).build(), s);
    }

    private static List<Map<String, Object>> drain(KuduScanner scanner, Schema s) throws KuduException {
        List<Map<String, Object>> out = new ArrayList<>();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (ColumnSchema c : s.getColumns()) {
                        row.put(c.getName(), value(r, c));
                    }
                    out.add(row);
                }
            }
        } finally {
            scanner.close();
        }
        return out;
    }

    private static Object value(RowResult r, ColumnSchema c) {
        String n = c.getName();
        if (r.isNull(n)) {
            return null;
        }
        Type t = c.getType();
        return switch (t) {
            case INT32 -> r.getInt(n);
            case INT64, UNIXTIME_MICROS -> r.getLong(n);
            case STRING -> r.getString(n);
            case BOOL -> r.getBoolean(n);
            default -> r.getObject(n);
        };
    }

    private static KuduPredicate eq(Schema s, String column, Object value) {
        ColumnSchema c = s.getColumn(column);
        if (value instanceof Integer i) {
            return KuduPredicate.newComparisonPredicate(c, KuduPredicate.ComparisonOp.EQUAL, i);
        }
        return KuduPredicate.newComparisonPredicate(c, KuduPredicate.ComparisonOp.EQUAL, (String) value);
    }

    // --- the event lookup --------------------------------------------------------------------------------------------

    /**
     * Looks up an event of the dataset carrying an older-form token as its own (if it has one) and one other, and
     * checks each answer: the own file ({@code db}, its token, typed after the data type) and the provenance files.
     */
    private void lookups(ExpectedDataset expected, List<String> v) throws KuduException {
        List<ExpectedDataset.Row> firsts = expected.rows().stream().filter(r -> r.occurrence() == 1).toList();
        if (firsts.isEmpty()) {
            return;
        }
        List<ExpectedDataset.Row> picked = new ArrayList<>();
        firsts.stream().filter(r -> r.event().getEitokenCount() > 0 && olderForm(r.event().getEitoken(0).getToken()))
                .findFirst().ifPresent(picked::add);
        ExpectedDataset.Row other = firsts.get(firsts.size() / 2);
        if (!picked.contains(other)) {
            picked.add(other);
        }
        if (lookup == null) {
            lookup = new EventLookup(kudu.client(), tables, 1, false);
        }
        LookupFilter only = new LookupFilter(java.util.Set.of(), null, null, expected.name().toString());
        for (ExpectedDataset.Row r : picked) {
            EventKey key = new EventKey(expected.name().runNumber(), r.event().getEventNumber());
            LookupResult result = lookup.lookup(key, only);
            Map<String, Object> c = expected.columns(r);
            String ownType = "Stream" + expected.name().dataType();
            List<LookupMatch> want = new ArrayList<>();
            String db = (String) c.get(KuduSchemas.DB);
            want.add(new LookupMatch(key, db, ownType, (String) c.get(KuduSchemas.TK), expected.name().toString(),
                    true, false));
            String[][] stages = {{KuduSchemas.DBRAW, KuduSchemas.TKRAW, "StreamRAW"},
                {KuduSchemas.DBESD, KuduSchemas.TKESD, "StreamESD"}, {KuduSchemas.DBAOD, KuduSchemas.TKAOD, "StreamAOD"}};
            for (String[] stage : stages) {
                String guid = (String) c.get(stage[0]);
                if (guid != null && !(stage[2].equals(ownType) && guid.equals(db))) {
                    want.add(new LookupMatch(key, guid, stage[2], (String) c.get(stage[1]),
                            expected.name().toString(), false, false));
                }
            }
            if (result.failed() || !want.equals(result.matches())) {
                v.add("lookup of " + key.text() + " (" + (olderForm((String) c.get(KuduSchemas.TK))
                        ? "older-form token" : "own token " + (c.get(KuduSchemas.TK) == null ? "none" : "today's form"))
                        + "): " + (result.failed() ? "failed: " + result.error() : result.matches() + ", expected "
                        + want));
            }
        }
    }

    /** A token whose OID halves have 8 hex digits (the older form). */
    static boolean olderForm(String token) {
        if (token == null) {
            return false;
        }
        try {
            return PoolToken.parse(token).oidDigits() == PoolToken.OLD_OID_DIGITS;
        } catch (IllegalArgumentException e) {
            return token.matches(".*\\[OID=[0-9A-F]{8}-[0-9A-F]{8}\\]$");
        }
    }

    // --- helpers ------------------------------------------------------------------------------------------------

    private static void same(List<String> d, String what, Object expected, Object actual) {
        Object a = actual instanceof Integer i && expected instanceof Long ? Long.valueOf(i) : actual;
        Object e = expected instanceof Integer i && actual instanceof Long ? Long.valueOf(i) : expected;
        if (!Objects.equals(e, a)) {
            d.add(what + " " + shown(actual) + ", expected " + shown(expected));
        }
    }

    private static String shown(Object o) {
        if (o == null) {
            return "null";
        }
        return o instanceof String s ? "'" + Printable.of(s, 200) + "'" : Printable.of(o.toString(), 400);
    }

    private static <T extends Comparable<? super T>> List<T> union(java.util.Collection<T> a,
                                                                  java.util.Collection<T> b) {
        java.util.TreeSet<T> all = new java.util.TreeSet<>(a);
        all.addAll(b);
        return new ArrayList<>(all);
    }

    /** The fields in which two events differ, field by field. */
    static String fieldDiff(Message expected, Message actual) {
        List<String> d = new ArrayList<>();
        for (FieldDescriptor f : expected.getDescriptorForType().getFields()) {
            boolean has = f.isRepeated() ? expected.getRepeatedFieldCount(f) > 0 : expected.hasField(f);
            boolean hasToo = f.isRepeated() ? actual.getRepeatedFieldCount(f) > 0 : actual.hasField(f);
            Object a = expected.getField(f);
            Object b = actual.getField(f);
            boolean floatBits = f.getJavaType() == FieldDescriptor.JavaType.FLOAT && has && hasToo
                    && Float.floatToRawIntBits((Float) a) != Float.floatToRawIntBits((Float) b);
            if (has != hasToo || !Objects.equals(a, b) || floatBits) {
                d.add(f.getName() + " " + (hasToo ? describe(b) : "absent") + ", expected "
                        + (has ? describe(a) : "absent"));
            }
        }
        if (d.isEmpty()) {
            d.add("equal fields, different bytes: " + HexFormat.of().formatHex(actual.toByteArray()) + ", expected "
                    + HexFormat.of().formatHex(expected.toByteArray()));
        }
        return String.join(", ", d);
    }

    private static String describe(Object value) {
        if (value instanceof Float f) {
            return f + " (bits 0x" + Integer.toHexString(Float.floatToRawIntBits(f)) + ")";
        }
        if (value instanceof com.google.protobuf.ByteString b) {
            return "'" + Printable.of(b.toStringUtf8(), 120) + "'";
        }
        return Printable.of(String.valueOf(value), 300);
    }

    private static String key(EIEvent_p1 e) {
        return Integer.toUnsignedString(e.getRunNumber()) + "/" + Long.toUnsignedString(e.getEventNumber());
    }

    private static String stackTop(Throwable e) {
        StackTraceElement[] st = e.getStackTrace();
        return st.length == 0 ? "" : " at " + st[0];
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    @Override
    public void close() {
        if (lookup != null) {
            lookup.close();
        }
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                // keep closing the others
            }
        }
        owned.clear();
    }
}
