package org.cdlib.mrt.ingestqueue.queue.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * A job a neighbour wrote with a credential in its payload URL
 * is shown without it (the API's and dashboard's job view).
 */
class JobConfigurationShownTest {
    private static JobConfiguration withUrl(String url) {
        return new JobConfiguration("bid0000000001", "demo_content", "dep", url, "file", "json", "add", null, null,
                null, null, null, null, null, null, null, null, null);
    }

    @Test
    void aCredentialInThePayloadUrlIsHiddenWhenShown() {
        JobConfiguration c = withUrl("https://alice:s3cret@example.org/a/b.txt");
        assertEquals("https://***@example.org/a/b.txt", c.shown().payloadUrl());
        assertEquals("https://alice:s3cret@example.org/a/b.txt", c.payloadUrl(), "what the queue holds is unchanged");
    }

    @Test
    void aPlainUrlIsShownAsItIs() {
        JobConfiguration c = withUrl("https://example.org/a/b.txt");
        assertSame(c, c.shown());
    }
}
