package org.cdlib.mrt.ingestqueue.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Inventory's local-id answers are not fixed by the contract: the ARK is found in JSON, XML or text. */
class HttpInventoryTest {
    @Test
    void theArkIsFoundInAJsonOrAnXmlAnswer() {
        assertEquals(Optional.of("ark:/99999/fk4new"),
                HttpInventory.ark("{\"invl:localContainerState\":{\"primaryIdentifier\":\"ark:/99999/fk4new\"}}"));
        assertEquals(Optional.of("ark:/13030/m5abc"), HttpInventory.ark("<inv:primaryIdentifier>ark:/13030/m5abc</inv:primaryIdentifier>"));
        assertTrue(HttpInventory.ark("<nothing/>").isEmpty());
        assertTrue(HttpInventory.ark("").isEmpty());
    }
}
