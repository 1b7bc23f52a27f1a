package org.cdlib.mrt.ingestqueue.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.cdlib.mrt.ingestqueue.queue.model.Identifiers;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/** mrt-dc.xml from the depositor's Dublin Core: keys with or without "dc.", in any case, in the elements' order. */
class SystemFilesTest {
    @Test
    void keysAreMatchedWithOrWithoutTheirPrefixInAnyCase() {
        Map<String, List<String>> dc = new LinkedHashMap<>();
        dc.put("title", List.of("A & B"));
        dc.put("DC.Creator", List.of("Smith, J.; Doe, A."));
        dc.put("creator", List.of("Roe, R."));
        dc.put("dc.subject", List.of("maps;  ; <rivers>"));
        dc.put("dc.description", List.of("one; not split"));
        dc.put("dcterms.extent", List.of("ignored"));
        dc.put("rights", null);
        assertEquals("""
            <?xml version="1.0" encoding="UTF-8"?>
            <DublinCore xmlns:dc="http://purl.org/dc/elements/1.1/">
              <dc:creator>Smith, J.</dc:creator>
              <dc:creator>Doe, A.</dc:creator>
              <dc:creator>Roe, R.</dc:creator>
              <dc:description>one; not split</dc:description>
              <dc:subject>maps</dc:subject>
              <dc:subject>&lt;rivers&gt;</dc:subject>
              <dc:title>A &amp; B</dc:title>
            </DublinCore>
            """, SystemFiles.dublinCore(dc));
    }

    /** Every kind of character a field may not hold (a neighbour writing jobs directly is not checked at our door). */
    static final String ODD =
            "a\u0000b\u0001c\tc\r\nd\u000Be\u007Ff\u0085g\u2028h\uD800i\uDC00j\uFFFEk\uFFFF <&> ]]> 𝄞";

    static final List<String> SPLIT = List.of("creator", "subject", "relation", "identifier"); // split on ';'
    static final List<String> ELEMENTS = List.of("contributor", "coverage", "creator", "date", "description", "format",
            "identifier", "language", "publisher", "relation", "rights", "source", "subject", "title", "type");

    @Test
    void mrtDcXmlIsWellFormedXml10WhateverAnyElementHolds(@TempDir Path dir) throws Exception {
        Map<String, List<String>> dc = new LinkedHashMap<>();
        ELEMENTS.forEach(e -> dc.put("DC." + e, List.of(ODD)));
        JobConfiguration c = config(dc);
        SystemFiles.write(dir, c, new Identifiers("ark:/99999/fk4" + ODD, List.of(ODD, "local 2")));
        Document d = parse(dir.resolve("mrt-dc.xml"));
        for (String e : ELEMENTS) {
            NodeList n = d.getElementsByTagNameNS("http://purl.org/dc/elements/1.1/", e);
            assertTrue(n.getLength() >= 1, e);
            String v = n.item(0).getTextContent();
            // a carriage return survives
            assertTrue(v.startsWith("a\uFFFDb\uFFFDc\tc\r\nd\uFFFDe\u007Ff"), e + ": " + v);
            assertTrue(
                    v.endsWith("\u0085g\u2028h\uFFFDi\uFFFDj\uFFFDk\uFFFD <&> ]]> 𝄞") || SPLIT.contains(e),
                    e + ": " + v);
        }
    }

    @Test
    void dublinCoreMadeFromTheErcIsWellFormedAndTheErcKeepsOneLinePerLabel(@TempDir Path dir) throws Exception {
        SystemFiles.write(dir, config(null), new Identifiers("ark:/99999/fk4x", List.of(ODD, "local\r\nwho: forged")));
        Document d = parse(dir.resolve("mrt-dc.xml"));
        List<String> names = new ArrayList<>();
        NodeList all = d.getDocumentElement().getChildNodes();
        for (int i = 0; i < all.getLength(); i++) {
            if (all.item(i).getLocalName() != null) {
                names.add(all.item(i).getLocalName());
            }
        }
        assertEquals(List.of("creator", "date", "identifier", "identifier", "identifier", "title"), names);
        List<String> erc = Files.readAllLines(dir.resolve("mrt-erc.txt"));
        assertEquals(6, erc.size(), String.join("\n", erc));
        assertEquals(
                List.of("erc", "who", "what", "when", "where", "where"),
                erc.stream().map(l -> l.split(":")[0]).toList());
        assertTrue(erc.get(5).endsWith("; local  who: forged"), erc.get(5));
        assertFalse(String.join("", erc).chars().anyMatch(ch -> ch < 0x20), erc.toString());
    }

    private static JobConfiguration config(Map<String, List<String>> dc) {
        return new JobConfiguration(
                "bid0000000001",
                "demo_content",
                "sam" + ODD,
                "https://example.org/a.txt",
                "file",
                "xml",
                "add",
                null,
                ODD,
                "a.txt",
                null,
                null,
                null,
                "who " + ODD,
                "what " + ODD,
                "when " + ODD,
                ODD,
                dc);
    }

    private static Document parse(Path f) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(f.toFile()); // throws on anything not well-formed
    }
}
