package org.eventindex.supervisor;

import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.names.DatasetName;
import org.eventindex.retry.Outage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Asks the catalogue, for every dataset not yet DONE, which files it has, and registers the list with the engine when
 * it changed (like a manifest). Each dataset is asked on its own: a failure is counted and the others go on; the next
 * poll tries again. A pass with failures is one log line (at doubling counts of such passes), and one line when a pass
 * succeeds again.
 */
final class CataloguePoller {
    private static final Logger LOG = LoggerFactory.getLogger(CataloguePoller.class);

    private final Catalogue catalogue;
    private final SupervisorEngine engine;
    private final SupervisorMetrics metrics;
    /** One line per failed pass (at doubling counts), not one per dataset: a catalogue down fails them all. */
    private final Outage outage;
    private final Duration interval;
    private int failedPasses;

    CataloguePoller(Catalogue catalogue, SupervisorEngine engine, SupervisorMetrics metrics) {
        this(catalogue, engine, metrics, "the catalogue", Duration.ofMinutes(1));
    }

    /**
     * @param name     the catalogue as the log names it, e.g. {@code Rucio catalogue https://rucio.example:443}
     * @param interval the time between two passes, as the log announces the next
     */
    CataloguePoller(Catalogue catalogue, SupervisorEngine engine, SupervisorMetrics metrics, String name,
                    Duration interval) {
        this.catalogue = Objects.requireNonNull(catalogue, "catalogue is null");
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.outage = new Outage(name, LOG);
        this.interval = Objects.requireNonNull(interval, "interval is null");
    }

    /** One pass over the datasets awaiting the catalogue; returns how many changed. Never throws. */
    int pollOnce() {
        int changed = 0;
        int asked = 0;
        int failed = 0;
        String firstFailure = null;
        for (String name : engine.datasetsAwaitingCatalogue()) {
            asked++;
            metrics.catalogueQueries.inc();
            try {
                DatasetName dataset = DatasetName.parse(name);
                Optional<List<Catalogue.File>> files = catalogue.files(dataset);
                if (files.isEmpty() || files.get().isEmpty()) {
                    LOG.debug("catalogue does not (yet) know dataset {}", dataset);
                    continue;
                }
                List<ManifestFile> manifest = files.get().stream()
                        .map(f -> new ManifestFile(f.guid(), f.events() < 0 ? -1 : f.events())).distinct().toList();
                if (engine.onCatalogue(dataset, manifest)) {
                    changed++;
                }
            } catch (IOException | RuntimeException e) {
                metrics.catalogueFailures.inc();
                failed++;
                if (firstFailure == null) {
                    firstFailure = "dataset " + name + ": " + e.getMessage();
                }
            }
        }
        if (failed > 0) {
            outage.retryingEvery(failed + " of " + asked + " lookups failed, the first of " + firstFailure,
                    ++failedPasses, interval);
        } else if (asked > 0) {
            failedPasses = 0;
            outage.reachable();
        }
        return changed;
    }
}
