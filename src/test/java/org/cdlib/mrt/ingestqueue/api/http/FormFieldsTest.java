package org.cdlib.mrt.ingestqueue.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.queue.model.BatchSubmission;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A form's fields as its client sent them, whatever chunks the body arrived in: a cut between the CR and the LF
 * before the closing boundary adds no CR to the last field (Netty's decoder did, netty#12729), and a CR the client
 * did send is still refused naming the field.
 */
class FormFieldsTest extends ApiServiceTest {

    @BeforeAll
    static void start() throws Exception {
        startService(Map.of("ingest.api.users", "sam:pw-s:submitter"));
        store.holds().holdQueue("test"); // the submissions are looked at, not run
    }

    private static RawHttp postSplit(String type) throws Exception {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("profile", "demo_content");
        fields.put("responseForm", "json");
        fields.put("url", "http://example.org/obj.zip");
        fields.put("type", type); // the last part: the split falls just after its value
        return SplitBody.post(base, "/poster/submit", "sam", "pw-s", MultipartForm.of(fields, null, null));
    }

    @Test
    void theCrOfTheCrlfBeforeABoundaryIsNotPartOfTheField() throws Exception {
        RawHttp r = postSplit("container");
        assertEquals(200, r.status(), r.body());
        JsonNode state = JSON.readTree(r.body()).get("bat:batchState");
        BatchSubmission s = store.batches().load(state.get("bat:batchID").asText()).submission();
        assertEquals("container", s.type());
        assertEquals("http://example.org/obj.zip", s.payloadUrl());
    }

    @Test
    void aLineBreakTheClientSentIsStillRefusedNamingTheField() throws Exception {
        for (String type : new String[] {"contai\rner", "container\r"}) {
            RawHttp r = postSplit(type);
            assertEquals(400, r.status(), r.body());
            String error = JSON.readTree(r.body()).get("error").asText();
            assertTrue(error.contains("field 'type' contains a line break"), error);
        }
    }
}
