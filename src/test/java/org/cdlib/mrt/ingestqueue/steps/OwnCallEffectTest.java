package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/**
 * An operator's own call in a route (README route example 1) is named by the property {@code effect}: a name that
 * is not one, or is one of the queue's own effects, fails the job naming the property, before anything is read.
 */
class OwnCallEffectTest {
    final StoreStep step = new StoreStep(null, null, null, null);

    String refusal(String name) {
        Exchange e = new DefaultExchange(new DefaultCamelContext());
        if (name != null) {
            e.setProperty(StoreStep.EFFECT, name);
        }
        return assertThrows(IllegalArgumentException.class, () -> step.effectDue(e)).getMessage();
    }

    @Test
    void aMissingBadOrOwnNameIsRefusedNamingTheProperty() {
        assertTrue(refusal(null).contains("'effect' is not set"), refusal(null));
        assertTrue(refusal("Monitor!").contains("'effect' is 'Monitor!'"), refusal("Monitor!"));
        String own = refusal("storage");
        assertTrue(own.contains("'effect' is 'storage'") && own.contains("the queue's own effects"), own);
    }
}
