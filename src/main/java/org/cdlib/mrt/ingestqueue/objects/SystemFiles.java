package org.cdlib.mrt.ingestqueue.objects;

import static org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration.DUBLIN_CORE;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.text.Text;

/**
 * {@code system/mrt-erc.txt} and {@code system/mrt-dc.xml} (CONTRACTS §7). Both are written
 * from whatever the job holds, checked at the door or not (a neighbour may write jobs directly):
 * the ERC's values each stay on their line, and the Dublin Core is well-formed XML 1.0 (a
 * character it cannot hold is written U+FFFD, {@link Text#xml}).
 */
public final class SystemFiles {
    /** DC elements whose value is split on {@code ;} into repeated elements. */
    private static final Set<String> SPLIT = Set.of("creator", "subject", "relation", "identifier");


    private SystemFiles() {
    }

    public static String erc(JobConfiguration c, Identifiers ids) {
        return "erc:\nwho: " + unas(c.ercWho()) + "\nwhat: " + unas(c.ercWhat()) + "\nwhen: " + unas(c.ercWhen())
                + "\nwhere: " + unas(ids.primary()) + "\nwhere: " + unas(String.join("; ", ids.localId())) + "\n";
    }

    public static String dublinCore(Map<String, List<String>> dc) {
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        if (dc == null || dc.values().stream().allMatch(v -> v == null || v.isEmpty())) {
            return x.append("<DublinCore xmlns:dc=\"http://purl.org/dc/elements/1.1/\"/>\n").toString();
        }
        x.append("<DublinCore xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n");
        // each key named once, "dc." dropped, before the elements are walked
        // (a regex per element and key was 1% of the real path's CPU)
        Map<String, List<String>> byElement = new HashMap<>();
        dc.forEach((key, vs) -> {
            if (vs != null) {
                String k = key.regionMatches(true, 0, "dc.", 0, 3) ? key.substring(3) : key;
                byElement.computeIfAbsent(k.toLowerCase(Locale.ROOT), e -> new ArrayList<>()).addAll(vs);
            }
        });
        for (String element : DUBLIN_CORE) {
            for (String v : byElement.getOrDefault(element, List.of())) {
                for (String part : SPLIT.contains(element) ? v.split(";") : new String[] {v}) {
                    if (!part.isBlank()) {
                        x.append("  <dc:").append(element).append('>').append(xml(part.strip()))
                                .append("</dc:").append(element).append(">\n");
                    }
                }
            }
        }
        return x.append("</DublinCore>\n").toString();
    }

    public static void write(Path systemDir, JobConfiguration c, Identifiers ids) throws IOException {
        Files.createDirectories(systemDir);
        Files.writeString(systemDir.resolve("mrt-erc.txt"), erc(c, ids), StandardCharsets.UTF_8);
        Files.writeString(
                systemDir.resolve("mrt-dc.xml"),
                dublinCore(given(c.dublinCore()) ? c.dublinCore() : fromErc(c, ids)),
                StandardCharsets.UTF_8);
    }

    /**
     * Dublin Core from the ERC when the depositor gave none, as Merritt's ingest does: who is the
     * creator, what the title, when the date, where the identifiers (the ARK, then the local ids).
     */
    static Map<String, List<String>> fromErc(JobConfiguration c, Identifiers ids) {
        Map<String, List<String>> dc = new LinkedHashMap<>();
        putGiven(dc, "creator", c.ercWho());
        putGiven(dc, "title", c.ercWhat());
        putGiven(dc, "date", c.ercWhen());
        List<String> where = new ArrayList<>();
        if (ids.primary() != null) {
            where.add(ids.primary());
        }
        where.addAll(ids.localId());
        if (!where.isEmpty()) {
            dc.put("identifier", where);
        }
        return dc;
    }

    private static boolean given(Map<String, List<String>> dc) {
        return dc != null
                && dc.values().stream().anyMatch(v -> v != null && v.stream().anyMatch(x -> x != null && !x.isBlank()));
    }

    private static void putGiven(Map<String, List<String>> dc, String element, String value) {
        // (:unas), (:unkn): Merritt's "no value"
        if (value != null && !value.isBlank() && !value.strip().startsWith("(:")) {
            dc.put(element, List.of(Text.blanked(value)));
        }
    }

    private static String unas(String v) {
        // a line break or control would start an ANVL line
        return v == null || v.isBlank() ? "(:unas)" : Text.blanked(v);
    }

    private static String xml(String s) {
        return Text.xml(s);
    }
}
