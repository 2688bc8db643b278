package org.eventindex.rebuild;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.eventindex.cluster.testing.KerberizedHdfs;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's renewal of the HDFS delegation tokens its tasks carry (decision 0082), against a real KDC and a
 * Kerberized NameNode whose tokens must be renewed every {@link #RENEW_INTERVAL}: a task holding the tokens the driver
 * renews still reads after that interval; one holding tokens granted at the same moment and not renewed is refused.
 * Both read through {@link TaskAccess#asDriverUser}, as an executor does, with the tokens alone (no Kerberos login).
 */
class TokenRenewalIT {
    private static final Duration RENEW_INTERVAL = Duration.ofSeconds(8);
    private static final String FILE = "/ei/renewal.txt";

    @TempDir
    Path tmp;

    @Test
    void tasksReadPastTheRenewIntervalWithRenewedTokensAndAreRefusedWithoutRenewal() throws Exception {
        try (MitKdc kdc = MitKdc.startForThisJvm(tmp.resolve("kdc"), Duration.ofMinutes(10));
             KerberizedHdfs hdfs = KerberizedHdfs.start(kdc, tmp.resolve("hdfs"), java.util.Map.of(
                     "dfs.namenode.delegation.token.renew-interval", Long.toString(RENEW_INTERVAL.toMillis())))) {
            try (FSDataOutputStream out = hdfs.fileSystem().create(new org.apache.hadoop.fs.Path(FILE))) {
                out.write("renewed".getBytes(StandardCharsets.UTF_8));
            }
            UserGroupInformation driver = UserGroupInformation.getLoginUser();
            String user = driver.getShortUserName();
            Configuration conf = hdfs.fileSystem().getConf();
            List<String> log = new CopyOnWriteArrayList<>();

            // the renewer by its principal, as TaskAccess.grant names it
            Credentials renewed = tokens(hdfs, driver.getUserName());
            Credentials notRenewed = tokens(hdfs, driver.getUserName());
            // both were issued before this: a token not renewed is refused from this + the interval on
            long granted = System.currentTimeMillis();
            try (TokenRenewal renewal = new TokenRenewal(
                    token -> driver.doAs((PrivilegedExceptionAction<Long>) () -> token.renew(conf)),
                    Clock.systemUTC(), log::add)) {
                renewal.track(renewed);
                assertEquals(1, renewal.renewals(), "the token is renewed once when it is tracked");
                TaskAccess withRenewal = access(hdfs, user, renewed);
                TaskAccess withoutRenewal = access(hdfs, user, notRenewed);
                // both are valid to begin with: a refusal later is the token's expiry, not a task that cannot read
                assertEquals("renewed", read(withRenewal));
                assertEquals("renewed", read(withoutRenewal));

                long expired = granted + RENEW_INTERVAL.toMillis() + 1_000;
                Await.until("the first renewal date of the tokens passed", RENEW_INTERVAL.multipliedBy(3),
                        () -> System.currentTimeMillis() > expired);
                Await.until("a renewal after the first", RENEW_INTERVAL.multipliedBy(3),
                        () -> renewal.renewals() >= 2);

                IOException refused = assertThrows(IOException.class, () -> read(withoutRenewal),
                        "a token not renewed is refused after the renew interval");
                assertTrue(String.valueOf(refused).contains("expired"), "refused for its expiry: " + refused);
                assertEquals("renewed", read(withRenewal), "log: " + log);
                assertTrue(log.stream().anyMatch(l -> l.startsWith("renewed the HDFS delegation token of ")), "log: "
                        + log);
            }
        }
    }

    private static Credentials tokens(KerberizedHdfs hdfs, String renewer) throws IOException {
        Credentials c = new Credentials();
        hdfs.fileSystem().addDelegationTokens(renewer, c);
        assertEquals(1, c.numberOfTokens(), "one HDFS delegation token");
        return c;
    }

    private static TaskAccess access(KerberizedHdfs hdfs, String user, Credentials tokens) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            tokens.writeTokenStorageToStream(out);
        }
        return new TaskAccess(hdfs.clientSettings(), user, bytes.toByteArray(), null);
    }

    private static String read(TaskAccess access) throws IOException {
        return access.asDriverUser(conf -> {
            try (FileSystem fs = FileSystem.newInstance(URI.create(conf.get("fs.defaultFS")), conf);
                 FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(FILE))) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        });
    }
}
