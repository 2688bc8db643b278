package org.eventindex.testing;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A JVM that claims a port ({@code Ports.claim(dir, port)}), prints {@code claimed true} or {@code claimed false},
 * and holds the claim until its standard input ends: the other JVM of {@link PortsTest}.
 */
public final class PortClaimHolder {
    private PortClaimHolder() {
    }

    public static void main(String[] args) throws IOException {
        boolean claimed = Ports.claim(Path.of(args[0]), Integer.parseInt(args[1]));
        System.out.println("claimed " + claimed);
        System.out.flush();
        while (System.in.read() >= 0) {
            // held until the parent closes the pipe
        }
    }
}
