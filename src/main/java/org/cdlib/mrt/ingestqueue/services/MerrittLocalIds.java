package org.cdlib.mrt.ingestqueue.services;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cdlib.mrt.ingestqueue.profile.Profile;

/**
 * Merritt inventory's local-id calls (CONTRACTS §6): {@code GET <inventory>/primary/<owner>/<local id>}
 * answers the bound ARK, {@code POST <inventory>/primary/<ark>/<owner>/<local id>} binds one. The
 * owner is the profile's {@code Owner}. The answer bodies are not confirmed by the contract: the
 * first ARK in a JSON or XML answer is taken, and "not found" (404, or no ARK) means unbound.
 * A binding is read back, so of two hosts binding at once both end with what inventory kept.
 */
public final class MerrittLocalIds implements LocalIds {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ARK = Pattern.compile("ark:/[0-9a-zA-Z]+/[^\\s\"<>]+");
    private final HttpService http;
    private final String url;
    private final Function<String, Profile> profiles;

    public MerrittLocalIds(HttpService http, String url, Function<String, Profile> profiles) {
        this.http = http;
        this.url = url.replaceAll("/+$", "");
        this.profiles = profiles;
    }

    @Override
    public Optional<String> primaryFor(String profile, String localId) throws ServiceException, InterruptedException {
        URI uri = URI.create(url + "/primary/" + enc(owner(profile)) + "/" + enc(localId) + "?responseForm=json");
        HttpResponse<String> r = http.send(http.request(uri).GET().build());
        if (r.statusCode() == 404) {
            return Optional.empty();
        }
        HttpService.expect(r, 200, "inventory");
        return ark(r.body());
    }

    @Override
    public String bind(String profile, String localId, String ark) throws ServiceException, InterruptedException {
        Optional<String> bound = primaryFor(profile, localId);
        if (bound.isPresent()) {
            return bound.get();
        }
        URI uri = URI.create(url + "/primary/" + enc(ark) + "/" + enc(owner(profile)) + "/" + enc(localId) + "?responseForm=json");
        HttpService.expect(http.send(http.request(uri).POST(HttpRequest.BodyPublishers.noBody()).build()), 200, "inventory");
        return primaryFor(profile, localId).orElse(ark);
    }

    private String owner(String profile) throws ServiceException {
        Profile p = profiles.apply(profile);
        if (p == null || p.owner() == null || p.owner().isBlank()) {
            throw new ServiceException("profile " + profile + " names no Owner: Merritt inventory binds local ids to an owner");
        }
        return p.owner();
    }

    static Optional<String> ark(String body) {
        if (body == null || body.isBlank()) {
            return Optional.empty();
        }
        try {
            JsonNode j = JSON.readTree(body);
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
