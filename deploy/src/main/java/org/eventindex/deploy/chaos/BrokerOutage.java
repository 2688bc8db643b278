package org.eventindex.deploy.chaos;

import java.time.Duration;

/**
 * One broker of the alias taken down and brought back ({@link Fault#KILL_BROKER}, {@link Fault#PAUSE_BROKER}), as
 * measured by the {@link FaultInjector}.
 *
 * @param atReceipt    a kill struck as the broker sent a receipt (it had just stored a message, whose sender did not
 *                     learn it and sends it again through another broker); false for a pause, or a kill without a
 *                     receipt in time
 * @param killedAfter  from the SIGSTOP to its watchdog's kill (null for kill -9, which is the kill itself)
 * @param down         from the fault to the restart
 * @param listening    from the restart to the broker accepting STOMP connections on its port
 * @param resubscribed from the restart to the active supervisor and every consumer subscribed on it again (their
 *                     {@code eventindex_broker_subscribed} for that broker), when what it stored can flow again
 */
record BrokerOutage(Fault fault, String broker, boolean atReceipt, Duration killedAfter, Duration down,
                    Duration listening, Duration resubscribed) {
    @Override
    public String toString() {
        return (atReceipt ? "killed as it sent a receipt (the receipt dropped), " : "")
                + (killedAfter == null ? "" : "watchdog kill after " + killedAfter.toMillis() + " ms, ") + "down "
                + down.toMillis() + " ms, listening " + listening.toMillis() + " ms after the restart, the daemons"
                + " subscribed on it again " + resubscribed.toMillis() + " ms after the restart";
    }
}
