package org.eventindex.supervisor.ha;

import org.eventindex.EventIndexFailure;

import java.io.IOException;

/**
 * This supervisor may not act: it was fenced out (another one took a higher token, or its lease is lost), so nothing
 * may be journalled, signalled or acknowledged any more; the daemon exits ({@link Leadership#EXIT_FENCED}) and is
 * started again as a standby. {@link Kind#FATAL}: this process can never write again. Its subclass
 * {@link LeaseSuspendedException} says "not now": the lease is unconfirmed but may be confirmed again.
 */
public class FencedException extends IOException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    public FencedException(String message) {
        super(message);
    }

    @Override
    public Kind kind() {
        return Kind.FATAL;
    }
}
