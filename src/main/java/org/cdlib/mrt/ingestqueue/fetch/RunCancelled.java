package org.cdlib.mrt.ingestqueue.fetch;

import java.util.function.BooleanSupplier;

/**
 * Whether the calling thread's run was cancelled, as {@code services.Run} answers it: fetch sits
 * below services (whose clients use fetch's bounds), so Run hands its answer down here when it is
 * loaded, which is before any run can be cancelled. False until then.
 */
public final class RunCancelled {
    private static volatile BooleanSupplier answer = () -> false;

    private RunCancelled() {
    }

    public static void answeredBy(BooleanSupplier cancelledHere) {
        answer = cancelledHere;
    }

    static boolean here() {
        return answer.getAsBoolean();
    }
}
