package org.eventindex.cluster;

import org.apache.hadoop.conf.Configuration;

import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Hadoop client configuration of a site: {@code core-site.xml} and {@code hdfs-site.xml} of one folder (as in
 * {@code HADOOP_CONF_DIR}), over Hadoop's built-in defaults. This is what makes {@code hdfs://<nameservice>/} URIs
 * work: the nameservice, its NameNodes and the failover proxy provider are defined there.
 */
public final class HadoopConfDir {
    /** The files every Hadoop client configuration folder holds; both are required. */
    public static final List<String> FILES = List.of("core-site.xml", "hdfs-site.xml");

    private HadoopConfDir() {
    }

    /**
     * Hadoop's defaults overlaid with the folder's files, or the defaults alone when {@code settings} names no folder.
     *
     * @throws ClusterConfigException naming the key or option and the folder or file when one is missing, unreadable
     *                                or not valid XML
     */
    public static Configuration load(ClusterSettings settings) {
        Configuration conf = new Configuration();
        Path dir = settings.hadoopConfDir();
        if (dir == null) {
            return conf;
        }
        String from = settings.names().hadoopConfDir() + " (else " + ClusterSettings.ENV_HADOOP_CONF_DIR + ")";
        if (!Files.isDirectory(dir)) {
            throw new ClusterConfigException("Hadoop configuration folder " + dir + " from " + from
                    + (Files.exists(dir) ? " is not a folder" : " does not exist"));
        }
        for (String name : FILES) {
            Path file = dir.resolve(name);
            if (!Files.isRegularFile(file)) {
                throw new ClusterConfigException("Hadoop configuration file " + file + " (folder from " + from
                        + ") does not exist; a Hadoop client configuration folder holds "
                        + String.join(" and ", FILES));
            }
            if (!Files.isReadable(file)) {
                throw new ClusterConfigException("cannot read Hadoop configuration file " + file + " (folder from "
                        + from + "): permission denied for this user");
            }
            URL url;
            try {
                url = file.toUri().toURL();
            } catch (MalformedURLException e) {
                throw new ClusterConfigException("Hadoop configuration file " + file + ": " + e.getMessage(), e);
            }
            Configuration one = new Configuration(false);
            one.addResource(url);
            try {
                one.size(); // parses now, so that a broken file is reported here and not at the first HDFS call
            } catch (RuntimeException e) {
                throw new ClusterConfigException("Hadoop configuration file " + file + " (folder from " + from
                        + ") is not a valid Hadoop configuration: " + rootMessage(e), e);
            }
            // by URL, not stream: Hadoop re-reads its resources whenever a default resource is added later
            conf.addResource(url);
        }
        conf.size();
        return conf;
    }

    /**
     * The properties the folder's files set, their values as written (variables unexpanded), without Hadoop's
     * defaults: what a process that cannot read the folder needs to reach the same clusters (the tasks of a Spark job,
     * which set them on a {@code new Configuration()}). Empty when {@code settings} name no folder.
     *
     * @throws ClusterConfigException as {@link #load} for a missing, unreadable or broken file
     */
    public static Map<String, String> properties(ClusterSettings settings) {
        load(settings); // checks the folder and its files
        Path dir = settings.hadoopConfDir();
        if (dir == null) {
            return Map.of();
        }
        Configuration folder = new Configuration(false);
        for (String name : FILES) {
            folder.addResource(new org.apache.hadoop.fs.Path(dir.resolve(name).toUri()));
        }
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : folder) {
            out.put(e.getKey(), e.getValue());
        }
        return Collections.unmodifiableMap(out);
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
