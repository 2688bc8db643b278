package org.eventindex.producer;

import java.time.Clock;
import java.util.List;

/** {@code java -jar eventindex-producer.jar FILE.ei.spb ...}: see {@link ProducerArgs#USAGE} and docs/producer.md. */
public final class ProducerMain {
    private ProducerMain() {
    }

    public static void main(String[] args) {
        List<String> list = List.of(args);
        // Before the first logger exists: slf4j-simple reads its level once.
        if (list.contains("-v") || list.contains("--verbose")) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
        }
        int code = new ProducerCli(System.getenv(), System.out, System.err, RetryPolicy.DEFAULT, Clock.systemUTC())
                .run(list);
        System.exit(code);
    }
}
