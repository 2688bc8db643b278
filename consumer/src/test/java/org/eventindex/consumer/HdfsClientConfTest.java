package org.eventindex.consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HdfsClientConfTest {
    @Test
    void consumerDefaultsUnlessTheOperatorConfiguredThem() {
        // HdfsConfiguration carries hdfs-default.xml's 400 ms: a built-in default, not the operator's choice
        Configuration defaults = Consumer.hdfsClientConf(new HdfsConfiguration());
        assertEquals(25, defaults.getInt(Consumer.HDFS_RETRY_DELAY_KEY, -1));
        assertEquals(10, defaults.getInt(Consumer.HDFS_RETRIES_KEY, -1));
        assertEquals(1 << 20, defaults.getInt(Consumer.HDFS_PACKET_KEY, -1));
        assertEquals(16, defaults.getInt(Consumer.HDFS_PACKETS_IN_FLIGHT_KEY, -1));
        assertEquals(true, defaults.getBoolean(Consumer.HDFS_BUFFER_REUSE_KEY, false));

        Configuration site = new HdfsConfiguration();
        site.set(Consumer.HDFS_RETRY_DELAY_KEY, "200", "hdfs-site.xml");
        site.set(Consumer.HDFS_PACKET_KEY, "131072", "hdfs-site.xml");
        Configuration kept = Consumer.hdfsClientConf(site);
        assertEquals(200, kept.getInt(Consumer.HDFS_RETRY_DELAY_KEY, -1));
        assertEquals(131072, kept.getInt(Consumer.HDFS_PACKET_KEY, -1));
        assertEquals(10, kept.getInt(Consumer.HDFS_RETRIES_KEY, -1));
        // the caller's configuration is not changed
        assertEquals(400, new HdfsConfiguration().getInt(Consumer.HDFS_RETRY_DELAY_KEY, -1));
    }
}
