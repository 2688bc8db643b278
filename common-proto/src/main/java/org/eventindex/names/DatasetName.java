package org.eventindex.names;

/**
 * An ATLAS dataset name {@code project.runNumber.stream.prodStep.dataType.version}, optionally followed by a task
 * output suffix {@code _tidNNNNNNNN_NN} or {@code _subNNNNNNNNNN}; e.g.
 * {@code data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00}.
 *
 * @param runNumber the run (or, for simulation, the dataset/channel number) as an int
 * @param version   the AMI tag chain without the suffix, e.g. {@code f838_m1824}
 * @param suffix    {@code _tid...}/{@code _sub...} or empty
 */
public record DatasetName(String project, int runNumber, String stream, String prodStep, String dataType,
                          String version, String suffix) {

    /**
     * @throws IllegalArgumentException naming the input and what is wrong (field count, empty field, run not a
     *                                  number, characters outside {@code [A-Za-z0-9_.-]}, too long)
     */
    public static DatasetName parse(String name) {
        throw new UnsupportedOperationException("TODO");
    }

    /** The container: the name without the task suffix. This names the HDFS directory. */
    public String container() {
        throw new UnsupportedOperationException("TODO");
    }

    /** The full name, as parsed. */
    @Override
    public String toString() {
        throw new UnsupportedOperationException("TODO");
    }
}
