package org.eventindex.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The loadgen process's CPU read from bash's {@code times} after it (the tablet-server bound's client column). */
class KuduBenchTest {

    @Test
    void childCpuIsTheLastLineOfTimes() {
        String output = "INSERT report\\n    rows total: 2000000\\n\\n0m0.003s 0m0.001s\\n1m2.500s 0m10.250s\\n";
        assertEquals((62_500 + 10_250), KuduBench.childCpuMillis(output.replace("\\n", "\n")));
    }

    @Test
    void missingTimesIsUnknown() {
        assertEquals(-1, KuduBench.childCpuMillis("loadgen said something else\n"));
    }
}
