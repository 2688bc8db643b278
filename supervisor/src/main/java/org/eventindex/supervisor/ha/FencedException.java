package org.eventindex.supervisor.ha;

import org.eventindex.EventIndexFailure;

import java.io.IOException;

/**
 * This supervisor was fenced out: another one took a higher token in the shared journal directory. Nothing may be
 * journalled, signalled or acknowledged any more; the daemon exits ({@link Leadership#EXIT_FENCED}) and is started
 * again as a standby. {@link Kind#FATAL}: this process can never write again.
 */
public final class FencedException extends IOException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    public FencedException(String message) {
        super(message);
    }

    @Override
    public Kind kind() {
        return Kind.FATAL;
    }
}
