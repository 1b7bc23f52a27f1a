package org.cdlib.mrt.ingestqueue.manifest;

/** A manifest that cannot be used; the message names the line and the problem. */
public class ManifestException extends RuntimeException {
    private final int line;

    public ManifestException(int line, String problem) {
        super(line > 0 ? "manifest line " + line + ": " + problem : "manifest: " + problem);
        this.line = line;
    }

    /** 1-based line of the problem, 0 when it concerns the whole manifest. */
    public int line() {
        return line;
    }
}
