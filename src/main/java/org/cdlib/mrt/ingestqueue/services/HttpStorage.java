package org.cdlib.mrt.ingestqueue.services;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;

/**
 * Merritt storage (CONTRACTS §5), the halves of its calls in {@code routes/storing.yaml}:
 * the object's state ({@code GET <StorageService>/state/<node>/<ark>?t=json}) and the new
 * version ({@code POST /add/<node>/<ark>}, update mode {@code /update/<node>/<ark>} with
 * {@code delete}) with the storage manifest; storage fetches the files from the URLs the
 * manifest names, which this service serves under {@code ingest.files.base-url}.
 */
public final class HttpStorage implements StorageAddresses {
    private final String filesBaseUrl;

    public HttpStorage(String filesBaseUrl) {
        this.filesBaseUrl = filesBaseUrl.replaceAll("/+$", "");
    }

    @Override
    public String fileUrl(String bid, String jid, Path file, String relativePath) {
        StringBuilder u = new StringBuilder(filesBaseUrl).append('/').append(bid).append('/').append(jid);
        for (String seg : relativePath.split("/")) {
            u.append('/').append(URLEncoder.encode(seg, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return u.toString();
    }

    @Override
    public String manifestUrl(Profile profile, String ark) {
        return base(profile) + "/manifest/" + profile.storageNode() + "/" + enc(ark);
    }

    public void stateRequest(Exchange exchange) throws ServiceException {
        Profile profile = profile(exchange);
        String ark = exchange.getProperty(ServiceCall.ARK, String.class);
        ServiceCall.prepare(
                exchange, "GET", base(profile) + "/state/" + profile.storageNode() + "/" + enc(ark), null, null, true);
        exchange.getIn().setHeader(Exchange.HTTP_QUERY, "t=json");
    }

    /**
     * 404 means no object yet (version 0); otherwise the version number the state names
     * (Merritt's storage answers a version state; CONTRACTS does not name the call, so the number
     * is taken from the usual field names).
     */
    public void stateAnswer(Exchange exchange) throws ServiceException {
        if (ServiceCall.status(exchange) == 404) {
            exchange.setProperty(ServiceCall.RESULT, 0);
            return;
        }
        String body = ServiceCall.expect(exchange, 200, "storage");
        exchange.setProperty(ServiceCall.RESULT, versionIn(exchange, body,
                "currentVersion", "versionID", "version", "numVersions"));
    }

    /**
     * Add mode: {@code POST /add/<node>/<ark>}. Update mode: {@code POST /update/<node>/<ark>} with
     * the same fields and {@code delete} = the delete lines, one {@code producer/} name per line;
     * storage carries forward what the update does not mention. Never sent twice blindly: the
     * job's effect record and the object's state decide what a later attempt does.
     */
    @SuppressWarnings("unchecked")
    public void addRequest(Exchange exchange) throws ServiceException {
        Profile profile = profile(exchange);
        String ark = exchange.getProperty(ServiceCall.ARK, String.class);
        List<Deletions.Delete> deletes = exchange.getProperty(ServiceCall.DELETES, List.class);
        List<String> localIds = exchange.getProperty(ServiceCall.LOCAL_IDS, List.class);
        Map<String, String> form = new LinkedHashMap<>();
        form.put("t", "json");
        form.put("manifest", exchange.getProperty(ServiceCall.MANIFEST, String.class));
        if (localIds != null && !localIds.isEmpty()) {
            form.put("local-identifier", String.join(";", localIds));
        }
        if (deletes != null) {
            form.put("delete", Deletions.field(deletes));
        }
        String body = form.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        String url = base(profile) + (deletes != null ? "/update/" : "/add/") + profile.storageNode() + "/" + enc(ark);
        ServiceCall.prepare(exchange, "POST", url, "application/x-www-form-urlencoded", body, false);
    }

    /**
     * The new version's number as the call's result. Storage answers
     * 400 to a wrong delete line: the failure names the lines sent.
     */
    @SuppressWarnings("unchecked")
    public void addAnswer(Exchange exchange) throws ServiceException {
        List<Deletions.Delete> deletes = exchange.getProperty(ServiceCall.DELETES, List.class);
        int status = ServiceCall.status(exchange);
        if (deletes != null && !deletes.isEmpty() && status / 100 == 4) {
            throw new ServiceException(
                    "storage refused the update of " + exchange.getProperty(ServiceCall.ARK, String.class)
                            + " (HTTP " + status + ServiceCall.excerpt(ServiceCall.body(exchange))
                            + "): a line of mrt-delete.txt may name a file the object does not have: "
                            + deletes.stream()
                                    .map(d -> "line " + d.line() + " '" + d.text() + "'")
                                    .collect(Collectors.joining(", ")));
        }
        String body = ServiceCall.expect(exchange, 200, "storage");
        exchange.setProperty(ServiceCall.RESULT, versionIn(exchange, body, "versionID", "version"));
    }

    private static int versionIn(Exchange exchange, String body, String... fields) throws ServiceException {
        try {
            JsonNode state = QueueJson.MAPPER.readTree(body);
            for (String field : fields) {
                JsonNode v = state.findValue(field);
                if (v != null && (v.canConvertToInt() || v.asText().matches("\\d+"))) {
                    return v.canConvertToInt() ? v.asInt() : Integer.parseInt(v.asText());
                }
            }
            throw new IllegalArgumentException("no version number in it");
        } catch (Exception e) {
            throw new ServiceException(
                    ServiceCall.what(exchange, "storage") + ": HTTP 200 but the answer is not a version state ("
                            + e.getMessage() + ")" + ServiceCall.excerpt(body));
        }
    }

    private static Profile profile(Exchange exchange) throws ServiceException {
        Profile profile = exchange.getProperty(ServiceCall.PROFILE, Profile.class);
        if (profile.storageService() == null || profile.storageNode() == null) {
            throw new ServiceException("profile " + profile.id() + " names no StorageService and StorageNode");
        }
        return profile;
    }

    private static String base(Profile profile) {
        return profile.storageService().replaceAll("/+$", "");
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
