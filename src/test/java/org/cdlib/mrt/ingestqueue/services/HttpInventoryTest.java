package org.cdlib.mrt.ingestqueue.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Inventory's local-id answers are not fixed by the contract: the ARK is found in JSON, XML or text. */
class HttpInventoryTest {
    /**
     * {@code GET /current/<ark>?t=json} as mrt-inventory answers it (a {@code VersionsState} through its
     * formatter, namespace {@code invv}: inv-it's ServiceDriverIT reads {@code invv:versionsState} /
     * {@code invv:currentVersion}); the XML form of the same state; nothing usable is no version.
     */
    @Test
    void theCurrentVersionIsReadFromInventorysVersionsState() {
        assertEquals(
                Optional.of(3),
                HttpInventory.currentVersion("{\"invv:versionsState\":{\"invv:objectID\":\"ark:/13030/m5x\","
                        + "\"invv:currentVersion\":3,\"invv:reportDate\":\"2026-01-01\"}}"));
        assertEquals(
                Optional.of(0), HttpInventory.currentVersion("{\"invv:versionsState\":{\"invv:currentVersion\":0}}"));
        assertEquals(
                Optional.of(2),
                HttpInventory.currentVersion(
                        "<invv:versionsState><invv:currentVersion>2</invv:currentVersion>" + "</invv:versionsState>"));
        assertTrue(HttpInventory.currentVersion("{\"invv:versionsState\":{}}").isEmpty());
        assertTrue(HttpInventory.currentVersion("").isEmpty());
    }

    @Test
    void theArkIsFoundInAJsonOrAnXmlAnswer() {
        assertEquals(Optional.of("ark:/99999/fk4new"),
                HttpInventory.ark("{\"invl:localContainerState\":{\"primaryIdentifier\":\"ark:/99999/fk4new\"}}"));
        assertEquals(
                Optional.of("ark:/13030/m5abc"),
                HttpInventory.ark("<inv:primaryIdentifier>ark:/13030/m5abc</inv:primaryIdentifier>"));
        assertTrue(HttpInventory.ark("<nothing/>").isEmpty());
        assertTrue(HttpInventory.ark("").isEmpty());
    }
}
