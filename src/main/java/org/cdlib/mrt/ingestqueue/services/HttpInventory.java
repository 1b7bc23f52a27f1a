package org.cdlib.mrt.ingestqueue.services;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;

/**
 * Merritt inventory (CONTRACTS §6), the halves of its calls in {@code routes/recording.yaml}
 * and {@code routes/processing.yaml}:
 * <ul>
 * <li>add: {@code POST <inventory>/add}, multipart {@code url}, {@code checkVersion},
 * {@code responseForm}; with {@code checkVersion} an add of the version inventory has is answered
 * without a second record (mrt-inventory {@code SaveObject.checkVersion}), but it is still never
 * sent twice blindly: recording records it as begun and asks the version first;</li>
 * <li>the object's version: {@code GET <inventory>/current/<ark>?t=json} answers 200
 * {@code {"invv:versionsState":{…,"invv:currentVersion":N}}}, N the highest version recorded
 * (0 for an object it does not know: mrt-inventory {@code InvService.getCurrent});</li>
 * <li>local ids: {@code GET <inventory>/primary/<owner>/<local id>} answers the bound ARK,
 * {@code POST <inventory>/primary/<ark>/<owner>/<local id>} binds one. The owner is the
 * profile's {@code Owner}. The answer bodies are not confirmed by the contract: the first ARK in
 * a JSON or XML answer is taken, and "not found" (404, or no ARK) means unbound.</li>
 * </ul>
 */
public final class HttpInventory {
    private static final Pattern ARK = Pattern.compile("ark:/[0-9a-zA-Z]+/[^\\s\"<>]+");
    private final String url;

    public HttpInventory(String url) {
        this.url = url.replaceAll("/+$", "");
    }

    public void addRequest(Exchange exchange) {
        StoredVersion version = exchange.getProperty(ServiceCall.VERSION, StoredVersion.class);
        String boundary = "----ingest-queue-" + UUID.randomUUID();
        StringBuilder body = new StringBuilder();
        for (String[] f :
                new String[][] {{"url", version.manifestUrl()}, {"checkVersion", "true"}, {"responseForm", "json"}}) {
            body.append("--").append(boundary).append("\r\n")
                    .append("Content-Disposition: form-data; name=\"").append(f[0]).append("\"\r\n\r\n")
                    .append(f[1]).append("\r\n");
        }
        body.append("--").append(boundary).append("--\r\n");
        ServiceCall.prepare(
                exchange, "POST", url + "/add", "multipart/form-data; boundary=" + boundary, body.toString(), true);
    }

    public void addAnswer(Exchange exchange) throws ServiceException {
        ServiceCall.expect(exchange, 200, "inventory");
    }

    /** The highest version inventory has of the object being recorded ({@link ServiceCall#VERSION}'s ARK). */
    public void versionRequest(Exchange exchange) {
        StoredVersion version = exchange.getProperty(ServiceCall.VERSION, StoredVersion.class);
        ServiceCall.prepare(exchange, "GET", url + "/current/" + enc(version.ark()), null, null, true);
        exchange.getIn().setHeader(Exchange.HTTP_QUERY, "t=json");
    }

    /** The version as the call's result (an {@code Integer}); 404 (an inventory without the call, or no object): 0. */
    public void versionAnswer(Exchange exchange) throws ServiceException {
        if (ServiceCall.status(exchange) == 404) {
            exchange.setProperty(ServiceCall.RESULT, 0);
            return;
        }
        String body = ServiceCall.expect(exchange, 200, "inventory");
        exchange.setProperty(
                ServiceCall.RESULT,
                currentVersion(body)
                        .orElseThrow(() -> new ServiceException(ServiceCall.what(exchange, "inventory")
                                + ": the answer names no currentVersion" + ServiceCall.excerpt(body))));
    }

    private static final Pattern CURRENT_XML = Pattern.compile("currentVersion>\\s*(\\d+)\\s*<");

    /** {@code currentVersion} in a JSON answer, whatever its namespace prefix ({@code invv:}), or in an XML one. */
    static Optional<Integer> currentVersion(String body) {
        if (body == null || body.isBlank()) {
            return Optional.empty();
        }
        try {
            JsonNode found = find(QueueJson.MAPPER.readTree(body));
            if (found != null
                    && (found.isIntegralNumber()
                            || found.isTextual() && found.asText().strip().matches("\\d+"))) {
                return Optional.of(Integer.parseInt(found.asText().strip()));
            }
            return Optional.empty();
        } catch (Exception notJson) {
            Matcher m = CURRENT_XML.matcher(body);
            return m.find() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
        }
    }

    private static JsonNode find(JsonNode node) {
        if (node == null || !node.isContainerNode()) {
            return null;
        }
        for (var it = node.fields(); it.hasNext(); ) {
            var e = it.next();
            if (e.getKey().equals("currentVersion") || e.getKey().endsWith(":currentVersion")) {
                return e.getValue();
            }
        }
        for (JsonNode child : node) {
            JsonNode f = find(child);
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    /** The ARK the local id ({@link ServiceCall#LOCAL_ID}) is bound to in the job's collection. */
    public void lookupRequest(Exchange exchange) throws ServiceException {
        String localId = exchange.getProperty(ServiceCall.LOCAL_ID, String.class);
        ServiceCall.prepare(
                exchange, "GET", url + "/primary/" + enc(owner(exchange)) + "/" + enc(localId), null, null, true);
        exchange.getIn().setHeader(Exchange.HTTP_QUERY, "responseForm=json");
    }

    /** The bound ARK as the call's result; none when inventory has no binding. */
    public void lookupAnswer(Exchange exchange) throws ServiceException {
        if (ServiceCall.status(exchange) == 404) {
            exchange.removeProperty(ServiceCall.RESULT);
            return;
        }
        ark(ServiceCall.expect(exchange, 200, "inventory"))
                .ifPresentOrElse(
                        a -> exchange.setProperty(ServiceCall.RESULT, a),
                        () -> exchange.removeProperty(ServiceCall.RESULT));
    }

    /** Binds the local id to {@link ServiceCall#ARK}; sent only when a lookup found it unbound, and read back after. */
    public void bindRequest(Exchange exchange) throws ServiceException {
        String localId = exchange.getProperty(ServiceCall.LOCAL_ID, String.class);
        String ark = exchange.getProperty(ServiceCall.ARK, String.class);
        ServiceCall.prepare(
                exchange,
                "POST",
                url + "/primary/" + enc(ark) + "/" + enc(owner(exchange)) + "/" + enc(localId),
                null,
                "",
                true);
        exchange.getIn().setHeader(Exchange.HTTP_QUERY, "responseForm=json");
    }

    public void bindAnswer(Exchange exchange) throws ServiceException {
        ServiceCall.expect(exchange, 200, "inventory");
    }

    private static String owner(Exchange exchange) throws ServiceException {
        Profile p = exchange.getProperty(ServiceCall.PROFILE, Profile.class);
        if (p.owner() == null || p.owner().isBlank()) {
            throw new ServiceException(
                    "profile " + p.id() + " names no Owner: Merritt inventory binds local ids to an owner");
        }
        return p.owner();
    }

    static Optional<String> ark(String body) {
        if (body == null || body.isBlank()) {
            return Optional.empty();
        }
        try {
            JsonNode j = QueueJson.MAPPER.readTree(body);
            for (String field : new String[] {"primaryIdentifier", "primaryID", "primary", "ark"}) {
                JsonNode v = j.findValue(field);
                if (v != null && v.isTextual() && v.asText().startsWith("ark:/")) {
                    return Optional.of(v.asText());
                }
            }
        } catch (Exception notJson) {
            // XML or text: the first ARK in it
        }
        Matcher m = ARK.matcher(body);
        return m.find() ? Optional.of(m.group()) : Optional.empty();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
