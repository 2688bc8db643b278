package org.eventindex.brokerwatch;

import static org.eventindex.brokerwatch.BrokerProbe.Outcome.ANSWERED;
import static org.eventindex.brokerwatch.BrokerProbe.Outcome.NOT_LISTENING;
import static org.eventindex.brokerwatch.BrokerProbe.Outcome.SILENT;
import static org.eventindex.brokerwatch.BrokerWatchdog.Action.KILLED;
import static org.eventindex.brokerwatch.BrokerWatchdog.Action.NONE;
import static org.eventindex.brokerwatch.BrokerWatchdog.Action.NO_PROCESS;
import static org.eventindex.brokerwatch.BrokerWatchdog.Action.WAITING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watchdog's decisions, probe outcome by probe outcome (a scripted probe and a recording killer). */
class BrokerWatchdogTest {
    @TempDir
    Path dir;

    private final Deque<BrokerProbe.Outcome> script = new ArrayDeque<>();
    private final List<Long> killed = new ArrayList<>();
    private final List<String> log = new ArrayList<>();

    private BrokerWatchdog watchdog(Path pidFile, boolean processExists) {
        return new BrokerWatchdog(script::removeFirst, pidFile, 3, pid -> {
            killed.add(pid);
            return processExists;
        }, log::add);
    }

    @Test
    void killsTheProcessOfThePidFileAfterTheLimitOfSilentProbesInARow() throws Exception {
        Path pid = Files.writeString(dir.resolve("activemq.pid"), "4242\n");
        BrokerWatchdog w = watchdog(pid, true);
        script.addAll(List.of(SILENT, SILENT, ANSWERED, SILENT, SILENT, SILENT, NOT_LISTENING));
        List<BrokerWatchdog.Action> actions = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            actions.add(w.check());
        }
        assertEquals(List.of(WAITING, WAITING, NONE, WAITING, WAITING, KILLED, NONE), actions);
        assertEquals(List.of(4242L), killed);
    }

    @Test
    void aStandbyThatDoesNotListenIsNeverKilled() throws Exception {
        Path pid = Files.writeString(dir.resolve("activemq.pid"), "4242");
        BrokerWatchdog w = watchdog(pid, true);
        for (int i = 0; i < 10; i++) {
            script.add(NOT_LISTENING);
            assertEquals(NONE, w.check());
        }
        assertEquals(List.of(), killed);
    }

    @Test
    void aMissingOrBadPidFileOrAGoneProcessIsReportedNotFatal() throws Exception {
        assertEquals(List.of(WAITING, WAITING, NO_PROCESS), threeSilentProbes(watchdog(dir.resolve("none.pid"),
                true)));
        assertEquals(List.of(WAITING, WAITING, NO_PROCESS), threeSilentProbes(watchdog(
                Files.writeString(dir.resolve("bad.pid"), "not a pid"), true)));
        assertEquals(List.of(), killed);
        assertTrue(log.stream().anyMatch(l -> l.contains("bad.pid")), log.toString());

        assertEquals(List.of(WAITING, WAITING, NO_PROCESS), threeSilentProbes(watchdog(
                Files.writeString(dir.resolve("gone.pid"), "77"), false)));
        assertEquals(List.of(77L), killed);
    }

    private List<BrokerWatchdog.Action> threeSilentProbes(BrokerWatchdog w) {
        script.addAll(List.of(SILENT, SILENT, SILENT));
        return List.of(w.check(), w.check(), w.check());
    }
}
