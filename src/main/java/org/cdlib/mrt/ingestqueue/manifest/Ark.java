package org.cdlib.mrt.ingestqueue.manifest;

import java.util.regex.Pattern;

/**
 * A primary identifier as Merritt accepts it: {@code ark:/<naan>/<name>}, the NAAN five digits
 * (CONTRACTS §3, the profiles' {@code Identifier-namespace}), the name one or more of the ARK
 * characters (letters, digits and {@code = ~ * + @ _ $ . / -}), not starting with {@code /}.
 * Merritt's own ids look like {@code ark:/13030/m5qv8jks} and {@code ark:/99999/fk4abc}. Held to
 * this: the submission form's {@code primaryIdentifier} and an {@code mrt-erc.txt} {@code where:}
 * taken for it; not a batch manifest's {@code mrt:primaryIdentifier}, which Merritt's parser
 * passes on unchecked.
 */
public final class Ark {
    private static final Pattern ARK = Pattern.compile("ark:/\\d{5}/[A-Za-z0-9=~*+@_$.\\-][A-Za-z0-9=~*+@_$./\\-]*");

    private Ark() {
    }

    public static boolean valid(String id) {
        return id != null && ARK.matcher(id.strip()).matches() && !id.contains("//") && !id.contains("/../");
    }

    /** The problem with {@code id} as a primary id, or null when it is a well-formed ARK. */
    public static String problem(String id) {
        if (valid(id)) {
            return null;
        }
        String shown = id == null ? "" : id.length() > 80 ? id.substring(0, 80) + "..." : id;
        return "'" + shown + "' is not an ARK (expected ark:/<5-digit NAAN>/<name>, e.g. ark:/99999/fk4abc)";
    }
}
