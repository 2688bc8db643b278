package org.eventindex.lookup;

/**
 * A LOADED DATASETS row as the lookup needs it.
 *
 * @param name     full dataset name, task suffix included
 * @param dataType e.g. {@code AOD}; the event's own file is of type {@code Stream + dataType}
 * @param version  the version column (AMI tags and task suffix)
 */
record LoadedDataset(String name, String project, String dataType, String version, int dspid, int rgid) {

    /** The AMI tag chain: the version without {@code _tid.../_sub...}. */
    String versionWithoutSuffix() {
        return version.replaceFirst("(_tid[0-9]{8}_[0-9]{2}|_sub[0-9]{10})$", "");
    }

    /** Simulation datasets live in MCEVENTS; their project is not a {@code data*} one. */
    boolean simulation() {
        return !project.startsWith("data");
    }

    String ownType() {
        return "Stream" + dataType;
    }
}
