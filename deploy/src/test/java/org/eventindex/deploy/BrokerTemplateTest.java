package org.eventindex.deploy;

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
import org.eventindex.stomp.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The shipped broker template {@code deploy/activemq/} grants exactly what {@link BrokerAccess} grants (which the
 * embedded broker of the tests and the demo enforces), has the same limits, and is secure as shipped.
 */
class BrokerTemplateTest {
    private static final Path DIR = Path.of("activemq");

    @Test
    void authorizationEntriesAreTheOnesTheEmbeddedBrokerEnforces() throws Exception {
        Set<BrokerAccess.Entry> shipped = new HashSet<>();
        NodeList entries = template().getElementsByTagName("authorizationEntry");
        for (int i = 0; i < entries.getLength(); i++) {
            Element e = (Element) entries.item(i);
            boolean topic = e.hasAttribute("topic");
            shipped.add(new BrokerAccess.Entry(topic ? e.getAttribute("topic") : e.getAttribute("queue"), topic,
                    groups(e, "read"), groups(e, "write"), groups(e, "admin")));
        }
        assertEquals(new HashSet<>(BrokerAccess.entries()), shipped);
    }

    @Test
    void temporaryQueueRightsAreTheOnesTheEmbeddedBrokerEnforces() throws Exception {
        NodeList entries = template().getElementsByTagName("tempDestinationAuthorizationEntry");
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

    @Test
    void startUpQueuesAreTheSame() throws Exception {
        NodeList queues = template().getElementsByTagName("queue");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < queues.getLength(); i++) {
            names.add(((Element) queues.item(i)).getAttribute("physicalName"));
        }
        assertEquals(BrokerAccess.queues(), names);
    }

    @Test
    void onlyATlsConnectorWithTheFrameAndConnectionLimits() throws Exception {
        NodeList connectors = template().getElementsByTagName("transportConnector");
        assertEquals(1, connectors.getLength());
        String uri = ((Element) connectors.item(0)).getAttribute("uri");
        assertTrue(uri.startsWith("stomp+ssl://"), uri);
        assertTrue(uri.contains("wireFormat.maxFrameSize=" + EmbeddedBroker.MAX_FRAME_BYTES), uri);
        assertTrue(uri.contains("transport.maxConnections=" + EmbeddedBroker.MAX_CONNECTIONS), uri);
        assertFalse(uri.contains("SSLv3") || uri.contains("TLSv1.1"), uri);
    }

    @Test
    void shipsWithAuthenticationAndNoUsableLogin() throws Exception {
        Document t = template();
        assertEquals(1, t.getElementsByTagName("jaasAuthenticationPlugin").getLength());
        assertFalse(Files.readString(DIR.resolve("activemq.xml")).contains("anonymousAccessAllowed=\"true\""));
        assertTrue(load("users.properties").isEmpty(), "the template must not ship a password");
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

    private static Document template() throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(DIR.resolve("activemq.xml").toFile());
    }

    private static Properties load(String name) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(DIR.resolve(name))) {
            p.load(in);
        }
        return p;
    }
}
