package org.eventindex.ops;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpsExchange;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.security.auth.x500.X500Principal;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;

/**
 * Authenticates every request of an {@link OpsHttpServer} by the mechanisms of its {@link HttpAccess}: a TLS client
 * certificate that the trust store verified (the TLS layer did) and whose subject or issuer is allowed, else a
 * Kerberos ticket in {@code Authorization: Negotiate}. The user is the exchange's {@link HttpExchange#getPrincipal()
 * principal}: the certificate's subject DN (RFC 2253) with realm {@value #CERTIFICATE}, or the client's Kerberos
 * principal with realm {@value #KERBEROS}. A request with no credentials gets 401 with {@code WWW-Authenticate:
 * Negotiate} when Kerberos is accepted; a certificate not allowed gets 403 when it is the only mechanism, a
 * Kerberos principal not allowed 403.
 */
final class HttpAuthenticator extends Authenticator {
    /** The realm of a {@link HttpPrincipal} authenticated by certificate. */
    static final String CERTIFICATE = "certificate";
    /** The realm of a {@link HttpPrincipal} authenticated by Kerberos. */
    static final String KERBEROS = "kerberos";
    /** Counter, labels {@code mechanism} and {@code outcome} ({@code accepted}, {@code refused}, {@code missing}). */
    static final String AUTHENTICATIONS = "eventindex_http_authentications_total";
    private static final Logger LOG = LoggerFactory.getLogger(HttpAuthenticator.class);
    private static final String NEGOTIATE = "Negotiate";

    private final boolean certificates;
    private final List<X500Principal> allowedSubjects;
    private final List<X500Principal> allowedIssuers;
    private final SpnegoAcceptor spnego;
    private final HttpAccess access;
    private final Counter outcomes;

    /** @param spnego the Kerberos acceptor, or null when Kerberos is not accepted */
    HttpAuthenticator(HttpAccess access, SpnegoAcceptor spnego, PrometheusRegistry metrics) {
        this.certificates = access.mechanisms().contains(HttpAccess.Mechanism.CERTIFICATE);
        this.allowedSubjects = access.allowedSubjects();
        this.allowedIssuers = access.allowedIssuers();
        this.spnego = spnego;
        this.access = access;
        this.outcomes = Counter.builder().name(AUTHENTICATIONS).help("HTTP requests by authentication mechanism and"
                + " outcome (missing: no credentials of that mechanism).").labelNames("mechanism", "outcome")
                .register(metrics);
    }

    @Override
    public Result authenticate(HttpExchange ex) {
        String refusedCertificate = null;
        if (certificates) {
            X509Certificate cert = peer(ex);
            if (cert != null) {
                String subject = cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
                if (allowed(cert)) {
                    outcomes.labelValues(CERTIFICATE, "accepted").inc();
                    return new Success(new HttpPrincipal(subject, CERTIFICATE));
                }
                refusedCertificate = subject;
                outcomes.labelValues(CERTIFICATE, "refused").inc();
                LOG.warn("HTTP {} {} from {}: certificate {} (issuer {}) is not in the allowed subjects or issuers",
                        ex.getRequestMethod(), ex.getRequestURI().getPath(), ex.getRemoteAddress(), subject,
                        cert.getIssuerX500Principal().getName(X500Principal.RFC2253));
            } else {
                outcomes.labelValues(CERTIFICATE, "missing").inc();
            }
        }
        if (spnego == null) {
            return new Failure(refusedCertificate != null ? 403 : 401);
        }
        String header = ex.getRequestHeaders().getFirst("Authorization");
        if (header != null && header.regionMatches(true, 0, NEGOTIATE + " ", 0, NEGOTIATE.length() + 1)) {
            SpnegoAcceptor.Outcome o;
            try {
                o = spnego.accept(Base64.getDecoder().decode(header.substring(NEGOTIATE.length() + 1).strip()));
            } catch (IllegalArgumentException e) {
                o = SpnegoAcceptor.Outcome.refused("the Negotiate token is not base64");
            }
            if (o.accepted() && !access.allows(o.user())) {
                outcomes.labelValues(KERBEROS, "refused").inc();
                LOG.warn("HTTP {} {} from {}: Kerberos principal {} is not in the allowed principals",
                        ex.getRequestMethod(), ex.getRequestURI().getPath(), ex.getRemoteAddress(), o.user());
                return new Failure(403);
            }
            if (o.accepted()) {
                outcomes.labelValues(KERBEROS, "accepted").inc();
                if (o.reply() != null && o.reply().length > 0) {
                    ex.getResponseHeaders().set("WWW-Authenticate",
                            NEGOTIATE + " " + Base64.getEncoder().encodeToString(o.reply()));
                }
                return new Success(new HttpPrincipal(o.user(), KERBEROS));
            }
            outcomes.labelValues(KERBEROS, "refused").inc();
            LOG.warn("HTTP {} {} from {}: Kerberos ticket for {} refused: {}", ex.getRequestMethod(),
                    ex.getRequestURI().getPath(), ex.getRemoteAddress(), spnego.principal(), o.reason());
        } else {
            outcomes.labelValues(KERBEROS, "missing").inc();
        }
        ex.getResponseHeaders().set("WWW-Authenticate", NEGOTIATE);
        return new Failure(401);
    }

    private boolean allowed(X509Certificate cert) {
        if (allowedSubjects.isEmpty() && allowedIssuers.isEmpty()) {
            return true;
        }
        return allowedSubjects.contains(cert.getSubjectX500Principal())
                || allowedIssuers.contains(cert.getIssuerX500Principal());
    }

    /** The client's verified certificate, or null without one (or over plain HTTP). */
    private static X509Certificate peer(HttpExchange ex) {
        if (!(ex instanceof HttpsExchange https) || https.getSSLSession() == null) {
            return null;
        }
        try {
            Certificate[] chain = https.getSSLSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }
}
