package org.eventindex.deploy.monitoring;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PromQlNamesTest {
    @Test
    void bareAndSelectedNamesAreFoundFunctionsLabelsAndDurationsAreNot() {
        assertEquals(Set.of("eventindex_supervisor_datasets"),
                PromQlNames.of("sum by (state) (eventindex_supervisor_datasets{state=~\"failed.*\"}) > 0"));
        assertEquals(Set.of("a_total", "b"), PromQlNames.of("increase(a_total[15m]) > 0 and on (job) b offset 5m"));
        assertEquals(Set.of("x_seconds_bucket"), PromQlNames.of(
                "histogram_quantile(0.95, sum without (instance) (rate(x_seconds_bucket[$__rate_interval])))"));
        assertEquals(Set.of("t_seconds"), PromQlNames.of("(t_seconds - time()) < 2 * 3600 and t_seconds > 0"));
        assertEquals(Set.of("up"), PromQlNames.of("up{job=~\"eventindex-(supervisor|consumer)\"} == 0"));
        assertEquals(Set.of("m"), PromQlNames.of("sum(rate(m{a=\"by (x)\", b='{}'}[5m])) by (le) > 1e3"));
    }
}
