package org.cdlib.mrt.ingestqueue.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An ingest profile in Merritt's format (CONTRACTS §3): {@code Key: value} lines, {@code #}
 * comments (also after a value), numbered keys {@code Notification.1}, {@code Collection.1}.
 * The queue uses the profile name ({@code ProfileID}) as the key of its collection hold.
 */
public record Profile(
        String id,
        String description,
        String identifierScheme,
        String identifierNamespace,
        List<String> collections,
        String owner,
        List<String> notifications,
        String notificationType,
        String notificationSuppression,
        String callbackUrl,
        String objectMinterUrl,
        String storageService,
        Integer storageNode,
        Integer priority,
        String context,
        Map<String, String> properties) {

    /** No "queued" mail when partial, no mail at all when full. */
    public boolean suppressesQueuedMail() {
        return "partial".equalsIgnoreCase(notificationSuppression) || suppressesAllMail();
    }

    public boolean suppressesAllMail() {
        return "full".equalsIgnoreCase(notificationSuppression);
    }

    /**
     * The profile's {@code Handler*} lines ({@code HandlerCallback.1: org...HandlerCallback},
     * {@code HandlerNotification.2: ...}), key to value in file order; commented-out lines are not here.
     */
    public Map<String, String> handlers() {
        Map<String, String> h = new LinkedHashMap<>();
        properties.forEach((k, v) -> {
            if (k.startsWith("Handler")) {
                h.put(k, v);
            }
        });
        return h;
    }

    /** True when a {@code Handler*} line names the handler {@code simpleName} (its class's last segment). */
    public boolean hasHandler(String simpleName) {
        return handlers().entrySet().stream().anyMatch(e -> {
            String v = e.getValue().strip();
            String last = v.substring(v.lastIndexOf('.') + 1);
            return last.equals(simpleName) || e.getKey().equals(simpleName) || e.getKey().startsWith(simpleName + ".");
        });
    }

    /**
     * Whether the notify step calls this profile back: a {@code CallbackURL} is needed; a
     * profile that lists handlers (Merritt's profiles do) must also list {@code HandlerCallback},
     * so a commented-out callback handler turns the callback off. A profile without any
     * {@code Handler*} line (this queue's short form) is called back whenever it has a URL.
     */
    public boolean callsBack() {
        if (callbackUrl == null || callbackUrl.isBlank()) {
            return false;
        }
        return handlers().isEmpty() || hasHandler("HandlerCallback");
    }

    public static Profile read(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read profile " + file, e);
        }
    }

    /**
     * Parses and validates a profile; a problem raises {@link InvalidProfileException} naming
     * the source, the line and what is wrong.
     */
    public static Profile parse(String text, String source) {
        Map<String, String> props = new LinkedHashMap<>();
        Map<Integer, String> notifications = new TreeMap<>();
        Map<Integer, String> collections = new TreeMap<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = stripComment(lines[i]).strip();
            if (line.isEmpty()) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new InvalidProfileException(
                        source + " line " + (i + 1) + ": expected 'Key: value', got '" + line + "'");
            }
            String key = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            if (key.startsWith("Notification.") || key.startsWith("Collection.")) {
                int dot = key.indexOf('.');
                int n;
                try {
                    n = Integer.parseInt(key.substring(dot + 1));
                } catch (NumberFormatException e) {
                    throw new InvalidProfileException(
                            source + " line " + (i + 1) + ": '" + key + "' needs a number after the dot");
                }
                (key.startsWith("Notification.") ? notifications : collections).put(n, value);
            }
            props.put(key, value);
        }
        String id = props.get("ProfileID");
        if (id == null || id.isBlank()) {
            throw new InvalidProfileException(source + ": ProfileID is missing");
        }
        for (String c : collections.values()) {
            if (!c.startsWith("ark:/")) {
                throw new InvalidProfileException(source + ": Collection value '" + c + "' does not start with ark:/");
            }
        }
        Integer node = integer(source, props, "StorageNode", 0, Integer.MAX_VALUE);
        Integer priority = integer(source, props, "Priority", 0, 99);
        String suppression = props.get("NotificationSuppression");
        if (suppression != null && !suppression.isBlank()
                && !List.of("partial", "full", "none").contains(suppression.toLowerCase())) {
            throw new InvalidProfileException(
                    source + ": NotificationSuppression must be partial or full, got '" + suppression + "'");
        }
        return new Profile(id, props.get("ProfileDescription"), props.get("Identifier-scheme"),
                props.get("Identifier-namespace"), new ArrayList<>(collections.values()), props.get("Owner"),
                new ArrayList<>(notifications.values()), props.get("NotificationType"), suppression,
                blankToNull(props.get("CallbackURL")), blankToNull(props.get("ObjectMinterURL")),
                blankToNull(props.get("StorageService")), node, priority, props.get("Context"), Map.copyOf(props));
    }

    private static Integer integer(String source, Map<String, String> props, String key, int min, int max) {
        String v = props.get(key);
        if (v == null || v.isBlank()) {
            return null;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n < min || n > max) {
                throw new InvalidProfileException(source + ": " + key + " must be " + min + "-" + max + ", got " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InvalidProfileException(source + ": " + key + " must be an integer, got '" + v + "'");
        }
    }

    private static String stripComment(String line) {
        if (line.stripLeading().startsWith("#")) {
            return "";
        }
        // "value   # comment": a '#' preceded by blank starts a comment; '#' inside URLs stays
        int idx = line.indexOf(" #");
        int tab = line.indexOf("\t#");
        if (tab >= 0 && (idx < 0 || tab < idx)) {
            idx = tab;
        }
        return idx >= 0 ? line.substring(0, idx) : line;
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v.strip();
    }
}
