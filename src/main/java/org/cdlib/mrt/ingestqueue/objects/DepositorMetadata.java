package org.cdlib.mrt.ingestqueue.objects;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.cdlib.mrt.ingestqueue.manifest.Ark;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.cdlib.mrt.ingestqueue.text.Text;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The depositor's own metadata inside the object (CONTRACTS §5), read as Merritt ingest reads it:
 * {@code producer/mrt-erc.txt} (ANVL: {@code who}, {@code what}, {@code when}, {@code where})
 * and {@code producer/mrt-dc.xml} (Dublin Core). Their values take precedence over the
 * submission form's and the manifest's: the ERC's who/what/when replace the form's; a
 * {@code where} that is an ARK becomes the primary id (validated), the other {@code where}s are
 * local ids merged with the job's and de-duplicated; each Dublin Core element the file gives
 * replaces the form's {@code DC.*} values of that element. Both files stay producer files. The
 * other names of CONTRACTS §5 ({@code mrt-embargo.txt}, {@code mrt-dua.txt}, ...) are kept as
 * producer files unchanged and not interpreted; {@code mrt-delete.txt} is handled by {@link Deletions}.
 */
public record DepositorMetadata(String who, String what, String when, String ark, List<String> localIds,
        Map<String, List<String>> dublinCore) {
    public static final String ERC = "mrt-erc.txt";
    public static final String DC = "mrt-dc.xml";
    private static final String DC_NS = "http://purl.org/dc/elements/1.1/";
    private static final int MAX_BYTES = 1 << 20;

    public static final DepositorMetadata NONE = new DepositorMetadata(null, null, null, null, List.of(), Map.of());

    /** Reads the two files from the object's {@code producer/} directory; either may be absent. */
    public static DepositorMetadata read(Path producer) throws IOException {
        DepositorMetadata erc = NONE;
        Path e = producer.resolve(ERC);
        if (Files.isRegularFile(e)) {
            erc = erc(text(e), "producer/" + ERC);
        }
        Path d = producer.resolve(DC);
        Map<String, List<String>> dc = Files.isRegularFile(d) ? dublinCore(d, "producer/" + DC) : Map.of();
        return new DepositorMetadata(erc.who, erc.what, erc.when, erc.ark, erc.localIds, dc);
    }

    private static String text(Path f) throws IOException {
        if (Files.size(f) > MAX_BYTES) {
            throw new IllegalArgumentException("producer/" + f.getFileName() + " is " + Files.size(f)
                    + " bytes; the limit is " + MAX_BYTES + " bytes");
        }
        return Files.readString(f, StandardCharsets.UTF_8);
    }

    /**
     * Parses an ERC in ANVL: {@code label: value} lines, a line starting with a blank continues
     * the one before, {@code #} lines are comments, values unescape {@code %0A %0D %25 %3A};
     * {@code (:unas)}-style values ({@code (:...)}) mean "none".
     */
    static DepositorMetadata erc(String text, String source) {
        List<String[]> pairs = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (l.isBlank() || l.startsWith("#")) {
                continue;
            }
            if (Character.isWhitespace(l.charAt(0)) && !pairs.isEmpty()) {
                String[] last = pairs.get(pairs.size() - 1);
                last[1] = (last[1] + " " + l.strip()).strip();
                continue;
            }
            int colon = l.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(source + " line " + (i + 1) + ": expected 'label: value', got '"
                        + (l.length() > 60 ? l.substring(0, 60) + "..." : l) + "'");
            }
            pairs.add(new String[] {
                l.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                l.substring(colon + 1).strip(),
                String.valueOf(i + 1)
            });
        }
        String who = null;
        String what = null;
        String when = null;
        String ark = null;
        Set<String> local = new LinkedHashSet<>();
        for (String[] p : pairs) {
            String value = unescape(p[1]);
            if (value.isEmpty() || value.startsWith("(:")) {
                continue;
            }
            // who/what/when may span lines (%0A); a where is an id, one line; no NUL or other control anywhere
            String unfit = Text.problem(value, !p[0].equals("where"));
            if (unfit != null) {
                throw new IllegalArgumentException(source + " line " + p[2] + ": " + p[0] + ": contains " + unfit);
            }
            switch (p[0]) {
                case "who" -> who = who == null ? value : who + "; " + value;
                case "what" -> what = what == null ? value : what + "; " + value;
                case "when" -> when = when == null ? value : when + "; " + value;
                case "where" -> {
                    if (value.toLowerCase(Locale.ROOT).startsWith("ark:")) {
                        String problem = Ark.problem(value);
                        if (problem != null) {
                            throw new IllegalArgumentException(source + " line " + p[2] + ": where: " + problem);
                        }
                        if (ark == null) {
                            ark = value;
                        } else if (!ark.equals(value)) {
                            throw new IllegalArgumentException(source + " line " + p[2] + ": a second ARK " + value
                                    + " (the first is " + ark + "); an object has one primary id");
                        }
                    } else {
                        for (String id : value.split(";")) {
                            if (!id.isBlank()) {
                                local.add(id.strip());
                            }
                        }
                    }
                }
                default -> { } // erc:, and labels the queue does not interpret
            }
        }
        return new DepositorMetadata(who, what, when, ark, List.copyOf(local), Map.of());
    }

    private static String unescape(String v) {
        return v.replace("%0A", "\n").replace("%0a", "\n").replace("%0D", "\r").replace("%0d", "\r").replace("%3A", ":")
                .replace("%3a", ":").replace("%25", "%").strip();
    }

    /** The Dublin Core elements of a depositor's {@code mrt-dc.xml}, by element name; DTDs and entities refused. */
    static Map<String, List<String>> dublinCore(Path f, String source) throws IOException {
        if (Files.size(f) > MAX_BYTES) {
            throw new IllegalArgumentException(
                    source + " is " + Files.size(f) + " bytes; the limit is " + MAX_BYTES + " bytes");
        }
        Document doc;
        try (InputStream in = Files.newInputStream(f)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setExpandEntityReferences(false);
            DocumentBuilder b = factory.newDocumentBuilder();
            b.setErrorHandler(null);
            doc = b.parse(in);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalArgumentException(source + " is not well-formed XML: " + e.getMessage());
        }
        Map<String, List<String>> dc = new LinkedHashMap<>();
        NodeList all = doc.getElementsByTagNameNS("*", "*");
        for (int i = 0; i < all.getLength(); i++) {
            Node n = all.item(i);
            if (!(n instanceof Element el)) {
                continue;
            }
            String name = el.getLocalName() == null ? el.getTagName() : el.getLocalName();
            boolean dcNamespace = DC_NS.equals(el.getNamespaceURI());
            if (!(dcNamespace || el.getNamespaceURI() == null)
                    || !JobConfiguration.DUBLIN_CORE.contains(name.toLowerCase(Locale.ROOT))) {
                continue;
            }
            String value = el.getTextContent().strip();
            if (!value.isEmpty()) {
                dc.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
            }
        }
        return dc;
    }

    public boolean isEmpty() {
        return who == null && what == null && when == null && ark == null && localIds.isEmpty() && dublinCore.isEmpty();
    }

    /** The job's identifiers with the ERC's ARK (when it gives one) and its local ids merged in. */
    public Identifiers merge(Identifiers ids) {
        Set<String> local = new LinkedHashSet<>(ids.localId());
        local.addAll(localIds);
        return new Identifiers(ark != null ? ark : ids.primary(), new ArrayList<>(local));
    }

    /** The configuration with the ERC's who/what/when and the file's Dublin Core elements in place of the form's. */
    public JobConfiguration apply(JobConfiguration c) {
        Map<String, List<String>> dc = new LinkedHashMap<>();
        if (c.dublinCore() != null) {
            c.dublinCore().forEach((k, v) -> dc.put(k.replaceFirst("(?i)^dc\\.", "").toLowerCase(Locale.ROOT), v));
        }
        dc.putAll(dublinCore);
        return new JobConfiguration(c.batchId(), c.profileName(), c.submitter(), c.payloadUrl(), c.payloadType(),
                c.responseType(), c.submissionMode(), c.workingDir(), c.localId(), c.fileName(), c.digestType(),
                c.digestValue(), c.fileSize(), who != null ? who : c.ercWho(), what != null ? what : c.ercWhat(),
                when != null ? when : c.ercWhen(), c.ercWhere(), dc.isEmpty() ? c.dublinCore() : dc);
    }
}
