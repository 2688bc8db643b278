package org.eventindex.kudu;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KuduLoaderMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return KuduLoaderMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpDocumentsEveryOption() {
        assertEquals(0, run("--help"));
        String help = out.toString(StandardCharsets.UTF_8);
        for (String option : new String[]{"--masters", "--prefix", "--buckets", "--replicas", "--epoch", "--file",
                "--hdfs", "--dataset", "--dspid", "--load-id", "--buffer", "create-tables", "load"}) {
            assertTrue(help.contains(option), option);
        }
    }

    @Test
    void noArgumentsIsAUsageError() {
        assertEquals(2, run());
        assertTrue(err().contains("Usage"));
    }

    @Test
    void usageErrorsNameTheProblem() {
        assertEquals(2, run("drop-tables"));
        assertTrue(err().contains("unknown command 'drop-tables'"), err());
        assertEquals(2, run("load", "--masters", "m:1", "--file", "f", "--dspid", "1", "--epoch", "0"));
        assertTrue(err().contains("--dataset is required"), err());
        assertEquals(2, run("load", "--masters", "m:1", "--dataset",
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", "--dspid", "x"));
        assertTrue(err().contains("--dspid must be an integer"), err());
        assertEquals(2, run("create-tables", "--masters", "m:1", "--colour", "red"));
        assertTrue(err().contains("unknown option --colour"), err());
        assertEquals(2, run("create-tables", "--masters", "m:1", "--replicas", "2"));
        assertTrue(err().contains("odd"), err());
        assertEquals(2, run("create-tables", "--masters"));
        assertTrue(err().contains("--masters needs a value"), err());
        assertEquals(2, run("delete", "--masters", "m:1", "--dataset", "../../etc"));
        assertTrue(err().contains("option --dataset: invalid dataset name '../../etc'"), err());
    }
}
