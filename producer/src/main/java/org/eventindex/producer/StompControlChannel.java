package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.Map;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompException;
import org.eventindex.stomp.StompSettings;

/** {@link ControlChannel} over one {@link StompConnection} (endpoint failover happens inside connect). */
public final class StompControlChannel implements ControlChannel {
    private final StompSettings settings;
    private StompConnection connection;

    public StompControlChannel(StompSettings settings) {
        this.settings = requireNonNull(settings, "settings is null");
    }

    @Override
    public void connect() throws ProducerException {
        if (connection != null && connection.isOpen()) {
            return;
        }
        close();
        try {
            connection = StompConnection.connect(settings);
        } catch (IOException e) {
            throw classify("cannot connect to the STOMP broker (" + settings.endpoints() + ")", e);
        }
    }

    @Override
    public void send(String destination, byte[] body) throws ProducerException {
        requireNonNull(destination, "destination is null");
        requireNonNull(body, "body is null");
        connect();
        try {
            connection.send(destination, body, Map.of());
        } catch (IOException e) {
            close();
            throw classify("message to " + destination + " was not acknowledged", e);
        }
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    private static ProducerException classify(String what, IOException e) {
        // a STOMP refusal that is not retriable is about the login or a permission
        boolean auth = e instanceof StompException se && !se.retriable();
        return new ProducerException(auth ? ExitCode.CONFIGURATION : ExitCode.TRANSIENT,
                what + ": " + e.getMessage() + (auth ? " (check --user and the STOMP password)" : ""), e);
    }
}
