package org.eventindex.consumer;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

/** What the consumer's tests on real services put in and look at: objects in S3, the HDFS tree, Kudu row counts. */
final class ServiceChecks {
    private ServiceChecks() {
    }

    /**
     * A consumer's configuration on these services, logging in as {@link BrokerAccess#CONSUMERS}, with tables of 2
     * buckets and 1 replica and its operations port at {@code httpPort} (0: any free one); secrets come from the
     * environment.
     */
    static Properties consumerConfig(String id, EmbeddedBroker broker, EmbeddedS3 s3, String bucket, EmbeddedHdfs hdfs,
                                     String hdfsRoot, EmbeddedKudu kudu, String tablePrefix, Path spool, int httpPort) {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, id);
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.STOMP_USER, BrokerAccess.CONSUMERS);
        p.setProperty(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(ConsumerConfig.S3_BUCKET, bucket);
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.HDFS_ROOT, hdfsRoot);
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.KUDU_TABLE_PREFIX, tablePrefix);
        p.setProperty(ConsumerConfig.KUDU_BUCKETS, "2");
        p.setProperty(ConsumerConfig.KUDU_REPLICAS, "1");
        p.setProperty(ConsumerConfig.SPOOL_DIR, spool.toString());
        p.setProperty(ConsumerConfig.HTTP_PORT, Integer.toString(httpPort));
        return p;
    }

    /** Stores {@code bytes} as {@code bucket/key}, through the same (deprecated) Apache HTTP client as the consumer. */
    @SuppressWarnings("deprecation")
    static void put(EmbeddedS3 s3, String bucket, String key, byte[] bytes) {
        try (S3Client client = S3Client.builder()
                .endpointOverride(s3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(ApacheHttpClient.builder()).build()) {
            client.putObject(PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromBytes(bytes));
        }
    }

    /** Every file under / (a consumer may only ever write below its root). */
    static TreeSet<String> hdfsTree(FileSystem fs) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(new org.apache.hadoop.fs.Path("/"), true);
        while (it.hasNext()) {
            out.add(it.next().getPath().toUri().getPath());
        }
        return out;
    }

    /** Rows of {@code table}; 0 when it does not exist. */
    static long rows(KuduClient client, String table) throws Exception {
        if (!client.tableExists(table)) {
            return 0;
        }
        KuduScanner scanner = client.newScannerBuilder(client.openTable(table)).setProjectedColumnNames(List.of())
                .build();
        long n = 0;
        while (scanner.hasMoreRows()) {
            n += scanner.nextRows().getNumRows();
        }
        scanner.close();
        return n;
    }
}
