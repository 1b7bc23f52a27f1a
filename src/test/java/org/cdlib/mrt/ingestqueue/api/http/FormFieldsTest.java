package org.cdlib.mrt.ingestqueue.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.MultiMap;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A form's fields as its client sent them, whatever chunks the multipart decoder was given. */
class FormFieldsTest {
    @Test
    void theCrOfTheCrlfBeforeABoundaryIsNotPartOfTheField() {
        // what Netty's decoder hands over when a chunk ends between that CR and its LF (netty#12729)
        MultiMap decoded = MultiMap.caseInsensitiveMultiMap().add("type", "container\r").add("profile", "demo");
        MultiMap form = InputChecks.formFields(decoded);
        assertEquals("container", form.get("type"));
        assertEquals("demo", form.get("profile"));
        InputChecks.formText(form, List.of("type", "profile")); // one line of text each: accepted
    }

    @Test
    void aLineBreakInsideAFieldIsStillRefusedNamingIt() {
        MultiMap form = InputChecks.formFields(MultiMap.caseInsensitiveMultiMap().add("type", "contai\rner\r"));
        ApiError e = assertThrows(ApiError.class, () -> InputChecks.formText(form, List.of("type")));
        assertTrue(e.getMessage().contains("field 'type' contains a line break"), e.getMessage());
    }
}
