package org.cdlib.mrt.ingestqueue.queue.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.cdlib.mrt.ingestqueue.queue.errors.CorruptNodeException;

/** The JSON of znode data: the design's snake_case field names, nulls written out. */
public final class QueueJson {
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);

    private QueueJson() {
    }

    /** A node's JSON as a tree; null when it is empty or not JSON (the typed read names it damaged). */
    public static JsonNode treeOrNull(byte[] data) {
        try {
            return data == null || data.length == 0 ? null : MAPPER.readTree(data);
        } catch (IOException e) {
            return null;
        }
    }

    /** A field's text; null when it is missing, null or blank. */
    public static String textOrNull(JsonNode j, String key) {
        JsonNode v = j.get(key);
        return v == null || v.isNull() || v.asText().isBlank() ? null : v.asText();
    }

    public static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialise " + value, e);
        }
    }

    public static <T> T read(String path, byte[] data, Class<T> type) {
        if (data == null || data.length == 0) {
            throw new CorruptNodeException(path, "empty, expected JSON " + type.getSimpleName());
        }
        try {
            T value = MAPPER.readValue(data, type);
            if (value == null) {
                throw new CorruptNodeException(path, "null, expected JSON " + type.getSimpleName());
            }
            return value;
        } catch (IOException e) {
            String text = new String(data, StandardCharsets.UTF_8);
            throw new CorruptNodeException(
                    path,
                    "not valid JSON " + type.getSimpleName() + " ("
                            + (e instanceof JsonProcessingException jp ? jp.getOriginalMessage() : e.getMessage())
                            + "): " + (text.length() > 80 ? text.substring(0, 80) + "..." : text));
        }
    }

    public static byte[] text(Object value) {
        return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
    }

    public static String text(byte[] data) {
        return data == null ? "" : new String(data, StandardCharsets.UTF_8).trim();
    }

    public static int readInt(String path, byte[] data) {
        try {
            return Integer.parseInt(text(data));
        } catch (NumberFormatException e) {
            throw new CorruptNodeException(path, "not an integer: '" + text(data) + "'");
        }
    }

    public static long readLong(String path, byte[] data) {
        try {
            return Long.parseLong(text(data));
        } catch (NumberFormatException e) {
            throw new CorruptNodeException(path, "not a number: '" + text(data) + "'");
        }
    }
}
