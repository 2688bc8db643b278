package org.eventindex.deploy;

import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventCounts;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.names.DatasetName;
import org.eventindex.stomp.StompSender;
import org.eventindex.supervisor.CollectionState;
import org.eventindex.supervisor.DatasetView;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Pushes generated datasets through a running {@link EmbeddedStack} the way production does: manifests registered
 * on the supervisor's control queue, one producer process per reporting grid job (crashed jobs run none), then waits
 * for every dataset to be DONE and measures the result from the components themselves.
 */
public final class PipelineRun {
    private final EmbeddedStack stack;
    private final java.nio.file.Path producerJar;
    private final Consumer<String> progress;

    public PipelineRun(EmbeddedStack stack, java.nio.file.Path producerJar, Consumer<String> progress) {
        this.stack = Objects.requireNonNull(stack, "stack is null");
        this.producerJar = Objects.requireNonNull(producerJar, "producerJar is null");
        this.progress = Objects.requireNonNull(progress, "progress is null");
    }

    /** Generates the datasets' SPB files (one per job attempt) under {@code dir}. */
    public List<GeneratedDataset> generate(List<GeneratorSpec> specs, java.nio.file.Path dir) throws IOException {
        List<GeneratedDataset> out = new ArrayList<>();
        for (GeneratorSpec spec : specs) {
            GeneratedDataset ds = new DatasetGenerator(spec).generate(dir.resolve(spec.datasetName()));
            progress.accept(String.format("generated %s: %d files, %d job attempts, %d events, %.1f bytes/event",
                    ds.datasetName(), ds.manifest().size(), ds.jobs().size(), ds.expectedEvents(), ds.bytesPerEvent()));
            out.add(ds);
        }
        return out;
    }

    /** Registers every dataset's manifest with the supervisor (the message the register-manifest command sends). */
    public void registerManifests(List<GeneratedDataset> datasets) throws IOException {
        try (StompSender sender = new StompSender(stack.operatorStomp())) {
            for (GeneratedDataset ds : datasets) {
                sender.send(Queues.SUPERVISOR_CONTROL, Json.write(ds.manifestMessage()), Map.of());
            }
        }
        progress.accept("registered " + datasets.size() + " dataset manifests");
    }

    /** Runs one producer process per reporting job attempt; every one must exit 0. */
    public int runProducers(List<GeneratedDataset> datasets, int parallelism) throws InterruptedException {
        return runProducers(datasets, parallelism, stack.producerEndpoints());
    }

    /** {@link #runProducers(List, int)} with the producers given {@code endpoints} (e.g. one broker of several). */
    public int runProducers(List<GeneratedDataset> datasets, int parallelism,
                            ProducerLauncher.ProducerEndpoints endpoints) throws InterruptedException {
        List<java.nio.file.Path> files = new ArrayList<>();
        for (GeneratedDataset ds : datasets) {
            ds.jobs(GeneratedJob.Outcome.REPORTED).forEach(j -> files.add(j.spbFile()));
        }
        ProducerLauncher launcher = new ProducerLauncher(producerJar, endpoints, parallelism);
        int[] done = {0};
        List<ProducerLauncher.Run> runs = launcher.runAll(files, run -> {
            synchronized (done) {
                done[0]++;
                if (done[0] % 10 == 0 || done[0] == files.size() || run.exitCode() != 0) {
                    progress.accept("producers finished: " + done[0] + "/" + files.size());
                }
            }
        });
        List<String> failed = new ArrayList<>();
        for (ProducerLauncher.Run run : runs) {
            if (run.exitCode() != 0) {
                failed.add(run.spbFile().getFileName() + " exited " + run.exitCode() + ": " + run.output().strip());
            }
        }
        if (!failed.isEmpty()) {
            throw new IllegalStateException(failed.size() + " producer(s) failed:\n  " + String.join("\n  ", failed));
        }
        return runs.size();
    }

    /** Waits until every dataset is DONE at the supervisor, or fails naming those that are not. */
    public void awaitDone(List<GeneratedDataset> datasets, Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        long lastDone = -1;
        while (true) {
            List<String> pending = new ArrayList<>();
            for (GeneratedDataset ds : datasets) {
                Optional<DatasetView> view = stack.supervisor().dataset(ds.datasetName());
                CollectionState state = view.map(DatasetView::state).orElse(null);
                if (state != CollectionState.DONE) {
                    pending.add(ds.datasetName() + " (" + (state == null ? "unknown" : state) + ")");
                }
            }
            long done = datasets.size() - pending.size();
            if (done != lastDone) {
                progress.accept("datasets in Kudu: " + done + "/" + datasets.size());
                lastDone = done;
            }
            if (pending.isEmpty()) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("not DONE within " + timeout + ": " + String.join(", ", pending));
            }
            Thread.sleep(200);
        }
    }

    /** Measures one finished dataset from S3, HDFS, Kudu and the supervisor. */
    public DatasetFigures measure(GeneratedDataset ds) throws IOException {
        DatasetView view = stack.supervisor().dataset(ds.datasetName())
                .orElseThrow(() -> new IllegalStateException("supervisor does not know " + ds.datasetName()));
        DatasetsRow record = stack.kuduQueries().dataset(ds.datasetName())
                .orElseThrow(() -> new IllegalStateException("no DATASETS row for " + ds.datasetName()));
        EventCounts counts = stack.kuduQueries().countEvents(record.dspid(), record.rgid());
        String bucket = stack.options().bucket();
        List<String> taskKeys = datasetKeys(ds);
        int read = 0;
        for (String key : taskKeys) {
            if (stack.s3().getCount(bucket, key) > 0) {
                read++;
            }
        }
        return new DatasetFigures(ds.datasetName(), ds.manifest().size(), taskKeys.size(), read,
                view.selectedObjects().size(), hdfsFiles(ds.datasetName()), counts.events(), ds.expectedUniqueEvents(),
                counts.duplicates(), ds.crossFileDuplicates(), view.times().traversalTime());
    }

    /** The dataset's objects in the bucket: keys name the job's taskID, unique per generated dataset. */
    private List<String> datasetKeys(GeneratedDataset ds) {
        List<String> tasks = ds.jobs().stream().map(GeneratedJob::taskID).distinct().toList();
        return stack.s3().keys(stack.options().bucket()).stream()
                .filter(k -> tasks.stream().anyMatch(t -> k.substring(k.lastIndexOf('/') + 1).startsWith(t + "_")))
                .toList();
    }

    private int hdfsFiles(String dataset) throws IOException {
        String container = DatasetName.parse(dataset).container();
        Path dir = new Path(stack.hdfsRoot(), container);
        FileStatus[] all;
        try {
            all = stack.hdfs().fs().listStatus(dir);
        } catch (FileNotFoundException e) {
            return 0;
        }
        int n = 0;
        for (FileStatus st : all) {
            String name = st.getPath().getName();
            if (name.startsWith(dataset + ".")) {
                n++;
            } else if (name.startsWith(".")) {
                throw new IllegalStateException("leftover temporary file in HDFS: " + st.getPath());
            }
        }
        return n;
    }
}
