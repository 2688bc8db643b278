package org.eventindex.supervisor;

import org.eventindex.message.Json;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The requests an operator sends to the supervisor's control queue, checked before they are sent with the rules the
 * supervisor applies when it reads them ({@link MessageValidator}), so that a request the supervisor would refuse as
 * malformed is refused on the operator's terminal with nothing sent.
 */
public final class OperatorRequests {
    private OperatorRequests() {
    }

    /**
     * The manifest file's bytes ({@code body}), checked.
     *
     * @throws IllegalArgumentException naming the file and why the supervisor would refuse it
     */
    public static byte[] checkedManifest(Path file, byte[] body) {
        Inbound checked = new MessageValidator("-").control(body, file.toString());
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException("manifest " + file + " is refused: " + r.rejection().reason() + ": "
                    + r.rejection().detail());
        }
        if (!(checked instanceof Inbound.Manifest)) {
            throw new IllegalArgumentException("manifest " + file
                    + " is not a manifest (its type must be \"manifest\")");
        }
        return body;
    }

    /**
     * A command's JSON ({@link ResignalCommand}, {@link InvalidateCommand}, {@link DeleteCommand}), checked.
     *
     * @throws IllegalArgumentException saying why the supervisor would refuse it
     */
    public static byte[] checked(Object command) throws IOException {
        byte[] body = Json.write(command);
        Inbound checked = new MessageValidator("-").control(body, "command line");
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException(r.rejection().detail());
        }
        return body;
    }
}
