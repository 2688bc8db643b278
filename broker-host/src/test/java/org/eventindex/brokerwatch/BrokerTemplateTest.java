package org.eventindex.brokerwatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.BrokerLoginFiles;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The shipped broker template {@code broker-host/activemq/activemq.xml} (every one of the independent brokers runs
 * it) grants exactly what {@link BrokerAccess} grants (which the embedded broker of the tests and the demo enforces),
 * has the same limits, is secure as shipped, and keeps its messages in its own local store.
 */
class BrokerTemplateTest {
    private static final Path DIR = Path.of("activemq");

    @ParameterizedTest
    @ValueSource(strings = {"activemq.xml"})
    void authorizationEntriesAreTheOnesTheEmbeddedBrokerEnforces(String file) throws Exception {
        Set<BrokerAccess.Entry> shipped = new HashSet<>();
        NodeList entries = template(file).getElementsByTagName("authorizationEntry");
        for (int i = 0; i < entries.getLength(); i++) {
            Element e = (Element) entries.item(i);
            boolean topic = e.hasAttribute("topic");
            shipped.add(new BrokerAccess.Entry(topic ? e.getAttribute("topic") : e.getAttribute("queue"), topic,
                    groups(e, "read"), groups(e, "write"), groups(e, "admin")));
        }
        assertEquals(new HashSet<>(BrokerAccess.entries()), shipped);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq.xml"})
    void temporaryQueueRightsAreTheOnesTheEmbeddedBrokerEnforces(String file) throws Exception {
        NodeList entries = template(file).getElementsByTagName("tempDestinationAuthorizationEntry");
        List<BrokerAccess.Entry> shipped = new ArrayList<>();
        for (int i = 0; i < entries.getLength(); i++) {
            Element e = (Element) entries.item(i);
            if (e.hasAttribute("read")) {
                BrokerAccess.Entry t = BrokerAccess.temporaryDestinations();
                shipped.add(new BrokerAccess.Entry(t.name(), false, groups(e, "read"), groups(e, "write"),
                        groups(e, "admin")));
            }
        }
        assertEquals(List.of(BrokerAccess.temporaryDestinations()), shipped);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq.xml"})
    void startUpQueuesAreTheSame(String file) throws Exception {
        NodeList queues = template(file).getElementsByTagName("queue");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < queues.getLength(); i++) {
            names.add(((Element) queues.item(i)).getAttribute("physicalName"));
        }
        assertEquals(BrokerAccess.queues(), names);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq.xml"})
    void onlyATlsConnectorWithTheFrameAndConnectionLimits(String file) throws Exception {
        NodeList connectors = template(file).getElementsByTagName("transportConnector");
        assertEquals(1, connectors.getLength());
        String uri = ((Element) connectors.item(0)).getAttribute("uri");
        assertTrue(uri.startsWith("stomp+ssl://"), uri);
        assertTrue(uri.contains("wireFormat.maxFrameSize=" + EmbeddedBroker.MAX_FRAME_BYTES), uri);
        assertTrue(uri.contains("transport.maxConnections=" + EmbeddedBroker.MAX_CONNECTIONS), uri);
        assertFalse(uri.contains("SSLv3") || uri.contains("TLSv1.1"), uri);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq.xml"})
    void shipsWithAuthenticationAndNoUsableLogin(String file) throws Exception {
        Document t = template(file);
        assertEquals(1, t.getElementsByTagName("jaasAuthenticationPlugin").getLength());
        assertFalse(Files.readString(DIR.resolve(file)).contains("anonymousAccessAllowed=\"true\""));
        assertTrue(load("users.properties").isEmpty(), "the template must not ship a password");
        assertTrue(load(BrokerLoginFiles.USERS_NEXT).isEmpty(), "the rotation file ships empty");
        Properties groups = load("groups.properties");
        assertEquals(Set.of(BrokerAccess.PRODUCERS, BrokerAccess.SUPERVISORS, BrokerAccess.CONSUMERS,
                BrokerAccess.OPERATORS, BrokerAccess.ADMINS), groups.stringPropertyNames());
        assertTrue(Files.readString(DIR.resolve("login.config")).contains("PropertiesLoginModule"));
    }

    private static Set<String> groups(Element e, String attribute) {
        Set<String> out = new HashSet<>();
        for (String g : e.getAttribute(attribute).split(",")) {
            if (!g.isBlank()) {
                out.add(g.strip());
            }
        }
        return out;
    }

    /**
     * An independent broker: its KahaDB store in its own data directory, with no shared-file locker and no path on
     * shared storage; its name from a system property, so that one file serves every broker host.
     */
    @Test
    void theBrokerKeepsItsOwnStoreAndTakesItsNameFromTheHost() throws Exception {
        Document t = template("activemq.xml");
        NodeList stores = t.getElementsByTagName("kahaDB");
        assertEquals(1, stores.getLength());
        Element kahaDb = (Element) stores.item(0);
        assertTrue(kahaDb.getAttribute("directory").startsWith("${activemq.data}/"), kahaDb.getAttribute("directory"));
        assertEquals(0, t.getElementsByTagName("shared-file-locker").getLength(), "no shared store");
        assertEquals("eventindex-${eventindex.broker.name}",
                ((Element) t.getElementsByTagName("broker").item(0)).getAttribute("brokerName"));
        try (var files = Files.list(DIR)) {
            assertEquals(List.of("activemq.xml"), files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".xml")).toList(), "one template for every broker");
        }
    }

    /**
     * No secret on the broker's command line: the key store's password comes from a file the placeholder configurer
     * reads (as ActiveMQ's own credentials.properties), and the documented start options do not carry it.
     */
    @Test
    void theKeyStorePasswordComesFromAFileNotFromTheCommandLine() throws Exception {
        Document t = template("activemq.xml");
        Element ssl = (Element) t.getElementsByTagName("sslContext").item(1);
        assertEquals("${eventindex.keystore.password}", ssl.getAttribute("keyStorePassword"));
        NodeList beans = t.getElementsByTagName("bean");
        Element configurer = (Element) beans.item(0);
        assertEquals("org.springframework.beans.factory.config.PropertyPlaceholderConfigurer",
                configurer.getAttribute("class"));
        boolean fromFile = false;
        NodeList props = configurer.getElementsByTagName("property");
        for (int i = 0; i < props.getLength(); i++) {
            Element p = (Element) props.item(i);
            fromFile |= p.getAttribute("name").equals("locations") && p.getTextContent().strip()
                    .equals("file:${activemq.conf}/eventindex-secrets.properties");
        }
        assertTrue(fromFile, "the placeholders are read from conf/eventindex-secrets.properties");
        String text = Files.readString(DIR.resolve("activemq.xml"));
        assertFalse(text.contains("-Deventindex.keystore.password"), "no password in the documented ACTIVEMQ_OPTS");
    }

    private static Document template(String file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(DIR.resolve(file).toFile());
    }

    private static Properties load(String name) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(DIR.resolve(name))) {
            p.load(in);
        }
        return p;
    }
}
