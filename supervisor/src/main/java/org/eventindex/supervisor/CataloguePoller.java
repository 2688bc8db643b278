package org.eventindex.supervisor;

import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.names.DatasetName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Asks the catalogue, for every dataset not yet DONE, which files it has, and registers the list with the engine when
 * it changed (like a manifest). Each dataset is asked on its own: a failure is logged and counted and the others go
 * on; the next poll tries again.
 */
final class CataloguePoller {
    private static final Logger LOG = LoggerFactory.getLogger(CataloguePoller.class);

    private final Catalogue catalogue;
    private final SupervisorEngine engine;
    private final SupervisorMetrics metrics;

    CataloguePoller(Catalogue catalogue, SupervisorEngine engine, SupervisorMetrics metrics) {
        this.catalogue = Objects.requireNonNull(catalogue, "catalogue is null");
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    }

    /** One pass over the datasets awaiting the catalogue; returns how many changed. Never throws. */
    int pollOnce() {
        int changed = 0;
        for (String name : engine.datasetsAwaitingCatalogue()) {
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
                LOG.warn("catalogue lookup of dataset {} failed: {}; retried at the next poll", name,
                        e.getMessage());
            }
        }
        return changed;
    }
}
