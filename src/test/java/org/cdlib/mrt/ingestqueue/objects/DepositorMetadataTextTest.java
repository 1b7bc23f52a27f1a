package org.cdlib.mrt.ingestqueue.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A depositor's producer/mrt-erc.txt: a control character in a value fails the job naming file, line and label. */
class DepositorMetadataTextTest {
    @Test
    void aControlCharacterInAnErcValueIsRefusedNamingLineAndLabel() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DepositorMetadata.erc("erc:\nwho: Ann\nwhat: A\u0000title\n", "producer/mrt-erc.txt"));
        assertEquals(
                "producer/mrt-erc.txt line 3: what: contains a NUL character (U+0000) at character 2", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> DepositorMetadata.erc("erc:\nwhere: loc-1%0Auser=admin\n", "producer/mrt-erc.txt"));
        assertEquals(
                "producer/mrt-erc.txt line 2: where: contains a line break (U+000A) at character 6", e.getMessage());
        // who, what and when may span lines (ANVL's %0A), as they could before
        DepositorMetadata ok =
                DepositorMetadata.erc("erc:\nwhat: line 1%0Aline 2\nwhere: loc-1\n", "producer/mrt-erc.txt");
        assertEquals("line 1\nline 2", ok.what());
        assertEquals(List.of("loc-1"), ok.localIds());
    }
}
