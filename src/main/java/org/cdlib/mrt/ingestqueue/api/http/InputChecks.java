package org.cdlib.mrt.ingestqueue.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.cdlib.mrt.ingestqueue.objects.UrlPaths;
import org.cdlib.mrt.ingestqueue.text.Text;
import org.cdlib.mrt.ingestqueue.text.Urls;

/**
 * What a client sends, checked where it enters, before it reaches the queue (and ZooKeeper
 * paths): ids and names in paths, the types of a JSON body's fields, notification addresses,
 * the characters of a submission's text (no control characters, no half of a surrogate pair)
 * and its URLs (no user name or password in them). Each refusal is a 400 whose message names the field and what is
 * expected.
 */
public final class InputChecks {
    public static final Pattern BATCH_ID = Pattern.compile("bid\\d{10}");
    public static final Pattern JOB_ID = Pattern.compile("jid\\d{10}");
    /** A profile (collection) name: what a file name in the profiles directory can be. */
    static final Pattern PROFILE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
    private static final String ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
    private static final String LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
    /** RFC 5322 addr-spec with a dot-atom local part and a domain of host name labels. */
    private static final Pattern ADDRESS = Pattern.compile(ATOM + "(?:\\." + ATOM + ")*@" + LABEL + "(?:\\." + LABEL
            + ")*");
    static final int MAX_RECIPIENTS = 20;
    /**
     * The free-text fields that may span lines (tabs and line breaks allowed, no other control):
     * the note and Dublin Core's description. Every other field is one line.
     */
    private static final Set<String> MULTI_LINE = Set.of("note", "description");
    /** The fields that are URLs, in the form and in the JSON body. */
    private static final Set<String> URL_FIELDS = Set.of("url", "payloadUrl", "payload_url");

    private InputChecks() {
    }

    /** Refuses an id or name in the path that is not one (400), before anything is looked up. */
    public static void pathParams(RoutingContext rc) {
        for (Map.Entry<String, String> p : rc.pathParams().entrySet()) {
            String v = p.getValue();
            switch (p.getKey()) {
                case "bid" -> id(v, BATCH_ID, "a batch id", "bid0000000042");
                case "jid" -> id(v, JOB_ID, "a job id", "jid0000000042");
                case "profile" -> id(v, PROFILE, "a profile name", "demo_content");
                default -> {
                }
            }
        }
        String batch = rc.queryParams().get("batch");
        if (batch != null) {
            id(batch, BATCH_ID, "a batch id (batch=)", "bid0000000042");
        }
    }

    private static void id(String value, Pattern p, String what, String example) {
        if (value == null || !p.matcher(value).matches()) {
            throw new ApiError(400, "'" + printable(value) + "' is not " + what + " (like " + example + ")");
        }
    }

    /**
     * A working file's path in its job's directory, as the URL names it: decoded once, here, for
     * the signature's check and the file served alike ({@link UrlPaths}: a {@code +} is a plus).
     */
    public static String filePath(RoutingContext rc) {
        String rest = rc.pathParam("*");
        try {
            return rest == null ? "" : UrlPaths.decode(rest);
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, "no such file: " + e.getMessage());
        }
    }

    /** {@code value} with control characters shown as {@code ?} and cut to 100 characters, for a message. */
    public static String printable(String value) {
        if (value == null) {
            return "";
        }
        String s = value.replaceAll("\\p{Cntrl}", "?");
        return s.length() > 100 ? s.substring(0, 100) + "…" : s;
    }

    /**
     * The JSON body's fields have the types they must: {@code text} fields strings (or null),
     * {@code dublin_core} an object of strings or arrays of strings.
     */
    public static void jsonTypes(JsonNode body, Collection<String> text) {
        for (String name : text) {
            JsonNode v = body.get(name);
            if (v != null && !v.isNull() && !v.isTextual()) {
                throw new ApiError(400, "field '" + name + "' must be a string, not " + kind(v));
            }
        }
        JsonNode dc = body.get("dublin_core");
        if (dc != null && !dc.isNull()) {
            if (!dc.isObject()) {
                throw new ApiError(400,
                        "field 'dublin_core' must be an object of element names to strings (or arrays of strings), not "
                        + kind(dc));
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = dc.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = e.getValue();
                boolean ok = v.isTextual() || v.isArray() && allText(v);
                if (!ok) {
                    throw new ApiError(400, "field 'dublin_core." + e.getKey()
                            + "' must be a string or an array of strings, not "
                            + kind(v));
                }
            }
        }
    }

    private static boolean allText(JsonNode array) {
        for (JsonNode n : array) {
            if (!n.isTextual()) {
                return false;
            }
        }
        return true;
    }

    private static String kind(JsonNode v) {
        return switch (v.getNodeType()) {
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NULL -> "null";
            default -> "a " + v.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

    /**
     * Refuses a {@code notification} that is not a list of mail addresses (RFC 5322
     * {@code local@domain}, separated by commas, semicolons or blanks): no line breaks or other
     * control characters, a domain in each, at most {@link #MAX_RECIPIENTS}.
     */
    public static void notification(String value) {
        if (value == null || value.isBlank()) {
            return;
        }
        if (value.chars().anyMatch(c -> c < 0x20 && c != ' ' || c == 0x7f)) {
            throw new ApiError(400, "field 'notification' contains a line break or another control character; "
                    + "give mail addresses separated by commas");
        }
        List<String> addresses = List.of(value.strip().split("[,;\\s]+"));
        if (addresses.size() > MAX_RECIPIENTS) {
            throw new ApiError(400, "field 'notification' names " + addresses.size() + " addresses; at most "
                    + MAX_RECIPIENTS);
        }
        for (String a : addresses) {
            if (!ADDRESS.matcher(a).matches() || a.length() > 254) {
                throw new ApiError(400, "field 'notification': '" + printable(a)
                        + "' is not a mail address (name@example.org)");
            }
        }
    }

    /**
     * The text of a Merritt form (every field the form knows, {@code DC.*} among them): refused
     * (400 naming the field) if it holds a control character or a lone surrogate, or if a URL
     * field names a user or password. The fields are the form's to name (the submission's).
     */
    public static void formText(MultiMap form, List<String> fields) {
        List<String> known = new ArrayList<>(fields);
        known.add("payloadUrl");
        for (Map.Entry<String, String> e : form) {
            String field = known.stream().filter(e.getKey()::equalsIgnoreCase).findFirst().orElse(null);
            if (field != null) {
                text(field, e.getValue());
            }
        }
    }

    /**
     * The same for the JSON body: its {@code text} fields, {@code payload_url} and each {@code dublin_core} name and
     * value.
     */
    public static void jsonText(JsonNode body, Collection<String> text) {
        for (String name : text) {
            JsonNode v = body.get(name);
            if (v != null && v.isTextual()) {
                text(name, v.asText());
            }
        }
        JsonNode url = body.get("payload_url");
        if (url != null && url.isTextual()) {
            text("payload_url", url.asText());
        }
        JsonNode dc = body.get("dublin_core");
        if (dc != null && dc.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = dc.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String problem = Text.problem(e.getKey(), false);
                if (problem != null) {
                    throw new ApiError(400, "field 'dublin_core' names an element '" + Text.oneLine(e.getKey())
                            + "' holding " + problem);
                }
                String field = "dublin_core." + e.getKey();
                if (e.getValue().isTextual()) {
                    text(field, e.getValue().asText());
                } else {
                    for (JsonNode v : e.getValue()) {
                        text(field, v.asText());
                    }
                }
            }
        }
    }

    /**
     * Refuses (400 naming the field) a value holding what {@link Text#problem} refuses, tabs and
     * line breaks allowed in {@link #MULTI_LINE} fields; and a URL field naming a user or
     * password, the password never repeated.
     */
    public static void text(String field, String value) {
        if (value == null) {
            return;
        }
        String element = field.substring(field.indexOf('.') + 1).toLowerCase(Locale.ROOT);
        String problem = Text.problem(value, MULTI_LINE.contains(element));
        if (problem != null) {
            throw new ApiError(400, "field '" + field + "' contains " + problem + "; "
                    + (MULTI_LINE.contains(element) ? "only tabs and line breaks are allowed in it"
                    : "it must be one line of text"));
        }
        if (URL_FIELDS.contains(field) && Urls.hasUserInfo(value.strip())) {
            throw new ApiError(400, "field '" + field + "' names a user or password before its host ("
                    + Urls.redacted(value.strip())
                    + "): credentials are not accepted in URLs and are never kept; give a URL the queue can fetch "
                    + "without them");
        }
    }
}
