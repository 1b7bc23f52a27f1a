package org.cdlib.mrt.ingestqueue.services;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * One call of a route to an outside service (EZID, storage, inventory, a callback), in two
 * halves around the route's {@code to: http:...}: a request half sets the address (exchange
 * property {@value #URL}, which the route copies to {@code CamelHttpUri}), method, headers and
 * body; an answer half checks the status and reads the body. What the halves need of the job is
 * put on the exchange by the route's domain steps under the names below.
 */
public final class ServiceCall {
    /** The address of the next call; Basic credentials in it become an Authorization header. */
    public static final String URL = "serviceUrl";
    /** Whether the next call may be sent again after a connection error or a 5xx (routes/error-handling.yaml). */
    public static final String REPEATABLE = "repeatable";
    /** The job's {@link org.cdlib.mrt.ingestqueue.profile.Profile}. */
    public static final String PROFILE = "profile";
    /** The object's {@link org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration} (the depositor's ERC applied). */
    public static final String DESCRIPTION = "description";
    /** The object's ARK. */
    public static final String ARK = "ark";
    /** The local id a local-id call is about. */
    public static final String LOCAL_ID = "localId";
    /** The object's local ids ({@code List<String>}). */
    public static final String LOCAL_IDS = "localIds";
    /** The storage manifest of the version being stored (its text). */
    public static final String MANIFEST = "storageManifest";
    /** Update mode's delete lines ({@code List<Deletions.Delete>}); absent in add mode. */
    public static final String DELETES = "deletes";
    /** The {@link StoredVersion} inventory is told of. */
    public static final String VERSION = "storedVersion";
    /** What a call answered: an ARK, a version, a binding (its type depends on the call). */
    public static final String RESULT = "serviceResult";

    private ServiceCall() {
    }

    /** Prepares the exchange for {@code method url}: no header of an earlier call is carried into it. */
    public static void prepare(
            Exchange exchange, String method, String url, String contentType, String body, boolean repeatable) {
        Message m = exchange.getIn();
        m.removeHeaders("Authorization|Idempotency-Key|Content-Type|CamelHttp.*");
        URI uri = URI.create(url);
        if (uri.getRawUserInfo() != null) {
            m.setHeader("Authorization", basic(uri.getUserInfo()));
            url = url.replace(uri.getRawUserInfo() + "@", "");
        }
        exchange.setProperty(URL, url);
        exchange.setProperty(REPEATABLE, repeatable);
        exchange.removeProperty(RESULT);
        m.setHeader(Exchange.HTTP_METHOD, method);
        if (contentType != null) {
            m.setHeader(Exchange.CONTENT_TYPE, contentType);
        }
        m.setBody(body);
    }

    public static String basic(String userInfo) {
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    public static int status(Exchange exchange) {
        Integer s = exchange.getIn().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        return s == null ? 0 : s;
    }

    public static String body(Exchange exchange) {
        String b = exchange.getIn().getBody(String.class);
        return b == null ? "" : b;
    }

    /** What was called, for messages: {@code storage POST http://...}. */
    public static String what(Exchange exchange, String service) {
        return service + " " + exchange.getIn().getHeader(Exchange.HTTP_METHOD, "POST", String.class) + " "
                + exchange.getProperty(URL, String.class);
    }

    /** Fails unless the answer has {@code status}; returns its body. */
    public static String expect(Exchange exchange, int status, String service) throws ServiceException {
        int got = status(exchange);
        String body = body(exchange);
        if (got != status) {
            throw new ServiceException(what(exchange, service) + ": HTTP " + got + excerpt(body));
        }
        return body;
    }

    /** ": the answer's first 300 characters", or nothing for an empty answer. */
    public static String excerpt(String body) {
        String b = body == null ? "" : body.strip();
        if (b.isEmpty()) {
            return "";
        }
        return ": " + (b.length() > 300 ? b.substring(0, 300) + "…" : b);
    }
}
