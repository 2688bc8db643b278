package org.eventindex.testing;

import java.nio.file.Path;

/**
 * The {@code ceph.conf} of an {@link EmbeddedCeph} cluster: everything on one address (127.0.0.1, or its host's) and
 * inside one folder.
 */
final class EmbeddedCephConfig {
    /** Memory the memstore OSD may use at most (it allocates on demand). */
    static final long MEMSTORE_BYTES = 3L << 30;

    private EmbeddedCephConfig() {
    }

    static String render(Path dir, String fsid, String monAddr, String address, int rgwPort) {
        return """
                [global]
                fsid = %1$s
                mon host = %2$s
                auth cluster required = none
                auth service required = none
                auth client required = none
                run dir = %3$s/run
                admin socket = %3$s/run/$name.asok
                pid file = %3$s/run/$name.pid
                log file = %3$s/log/$name.log
                keyring = %3$s/keyring
                osd pool default size = 1
                osd pool default min size = 1
                osd pool default pg num = 8
                osd pool default pgp num = 8
                osd crush chooseleaf type = 0
                mon allow pool size one = true
                mon allow pool delete = true
                mon warn on pool no redundancy = false
                ms bind ipv6 = false
                public addr = %6$s
                crash dir = %3$s/crash

                [mon]
                mon data = %3$s/mon/$name

                [osd]
                osd data = %3$s/osd/$name
                osd objectstore = memstore
                memstore device bytes = %4$d

                [client.rgw.ei]
                ms mon client mode = crc
                rgw frontends = beast endpoint=%6$s:%5$d
                rgw data = %3$s/rgw
                """.formatted(fsid, monAddr, dir, MEMSTORE_BYTES, rgwPort, address);
    }
}
