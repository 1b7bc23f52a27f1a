package org.cdlib.mrt.ingestqueue.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
}
