package org.eventindex.producer;

/** The connection to the supervisor's broker, as the producer needs it. */
public interface ControlChannel extends AutoCloseable {

    /** Opens the connection if it is not open, so that credentials and reachability are known before uploading. */
    void connect() throws ProducerException;

    /** Persistent send that returns once the broker acknowledged it; reconnects first if the connection dropped. */
    void send(String destination, byte[] body) throws ProducerException;

    @Override
    void close();
}
