package org.cdlib.mrt.ingestqueue.services;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.objects.Deletions;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/**
 * Merritt storage (CONTRACTS §5): {@code POST <StorageService>/add/<node>/<ark>} (update mode:
 * {@code /update/<node>/<ark>} with {@code delete}) with the storage manifest; storage fetches the files from the URLs the manifest names, which this service
 * serves under {@code ingest.files.base-url}.
 */
public final class HttpStorage implements Storage {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpService http;
    private final String filesBaseUrl;

    public HttpStorage(HttpService http, String filesBaseUrl) {
        this.http = http;
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
    public StoredVersion add(Profile profile, String ark, Path workingDir, String manifest, String localId)
            throws ServiceException, InterruptedException {
        return store(profile, ark, workingDir, manifest, localId, false, List.of());
    }

    /**
     * Add mode: {@code POST /add/<node>/<ark>}. Update mode: {@code POST /update/<node>/<ark>} with
     * the same fields and {@code delete} = the delete lines, one {@code producer/} name per line
     * (CONTRACTS §5); storage carries forward what the update does not mention. Storage answers 400
     * to a wrong delete line: the failure then names the lines sent.
     */
    @Override
    public StoredVersion store(Profile profile, String ark, Path workingDir, String manifest, String localId, boolean update,
            List<Deletions.Delete> deletes) throws ServiceException, InterruptedException {
        if (profile.storageService() == null || profile.storageNode() == null) {
            throw new ServiceException("profile " + profile.id() + " names no StorageService and StorageNode");
        }
        Map<String, String> form = new LinkedHashMap<>();
        form.put("t", "json");
        form.put("manifest", manifest);
        if (localId != null) {
            form.put("local-identifier", localId);
        }
        if (update) {
            form.put("delete", Deletions.field(deletes));
        }
        String body = form.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        URI uri = URI.create(base(profile) + (update ? "/update/" : "/add/") + profile.storageNode() + "/" + enc(ark));
        HttpResponse<String> r = http.sendOnce(http.request(uri)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        if (update && !deletes.isEmpty() && r.statusCode() / 100 == 4) {
            throw new ServiceException("storage refused the update of " + ark + " (HTTP " + r.statusCode() + HttpService.answer(r)
                    + "): a line of mrt-delete.txt may name a file the object does not have: "
                    + deletes.stream().map(d -> "line " + d.line() + " '" + d.text() + "'").collect(Collectors.joining(", ")));
        }
        HttpService.expect(r, 200, "storage");
        int version;
        try {
            JsonNode state = JSON.readTree(r.body());
            JsonNode v = state.findValue("versionID");
            if (v == null) {
                v = state.findValue("version");
            }
            if (v == null || !v.canConvertToInt() && !v.asText().matches("\\d+")) {
                throw new IllegalArgumentException("no version number in it");
            }
            version = v.canConvertToInt() ? v.asInt() : Integer.parseInt(v.asText());
        } catch (Exception e) {
            throw new ServiceException("storage POST " + uri + ": HTTP 200 but the answer is not a version state ("
                    + e.getMessage() + "): " + HttpService.answer(r));
        }
        return new StoredVersion(ark, version, manifestUrl(profile, ark), update ? "update" : "add",
                deletes.stream().map(Deletions.Delete::name).toList());
    }

    /**
     * {@code GET <StorageService>/state/<node>/<ark>?t=json}: 404 means no object yet; otherwise the
     * version number the state names (Merritt's storage answers a version state; CONTRACTS does not
     * name the call, so the number is taken from the usual field names).
     */
    @Override
    public int currentVersion(Profile profile, String ark) throws ServiceException, InterruptedException {
        if (profile.storageService() == null || profile.storageNode() == null) {
            throw new ServiceException("profile " + profile.id() + " names no StorageService and StorageNode");
        }
        URI uri = URI.create(base(profile) + "/state/" + profile.storageNode() + "/" + enc(ark) + "?t=json");
        HttpResponse<String> r = http.send(http.request(uri).GET().build());
        if (r.statusCode() == 404) {
            return 0;
        }
        HttpService.expect(r, 200, "storage state");
        try {
            JsonNode state = JSON.readTree(r.body());
            for (String field : new String[] {"currentVersion", "versionID", "version", "numVersions"}) {
                JsonNode v = state.findValue(field);
                if (v != null && (v.canConvertToInt() || v.asText().matches("\\d+"))) {
                    return v.canConvertToInt() ? v.asInt() : Integer.parseInt(v.asText());
                }
            }
            throw new IllegalArgumentException("no version number in it");
        } catch (Exception e) {
            throw new ServiceException("storage GET " + uri + ": HTTP 200 but the answer is not a version state ("
                    + e.getMessage() + "): " + HttpService.answer(r));
        }
    }

    @Override
    public String manifestUrl(Profile profile, String ark) {
        return base(profile) + "/manifest/" + profile.storageNode() + "/" + enc(ark);
    }

    private static String base(Profile profile) {
        return profile.storageService().replaceAll("/+$", "");
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
