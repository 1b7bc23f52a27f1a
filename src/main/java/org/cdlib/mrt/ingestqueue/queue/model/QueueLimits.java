package org.cdlib.mrt.ingestqueue.queue.model;


import java.nio.charset.StandardCharsets;
import org.cdlib.mrt.ingestqueue.queue.errors.QueueException;
import org.cdlib.mrt.ingestqueue.text.Urls;

/**
 * The byte limits that keep every ZooKeeper request and answer far below the packet limit
 * ({@code jute.maxbuffer}, 1 MB by default; tests run clients at {@link #PACKET_BYTES}). What a
 * depositor sends is checked against these at the door; what the queue writes is checked again
 * before it reaches ZooKeeper. DESIGN.md lists them.
 */
public final class QueueLimits {
    /** The packet size the queue is built to stay under (tests and benchmarks run clients with it). */
    public static final int PACKET_BYTES = 524_288;
    /** What one transaction or read transaction may carry, leaving room for paths and headers. */
    public static final int TRANSACTION_BYTES = 256 * 1024;
    /** One znode's data: a submission, a job's configuration. */
    public static final int NODE_BYTES = 32 * 1024;
    /** A dashboard session: a user's 20 ids. */
    public static final int SESSION_BYTES = 2048;
    /** One text field of a submission or one manifest cell (title, creator, local id, note...). */
    public static final int FIELD_BYTES = 4096;
    /** A URL (payload, manifest row, notification callback). */
    public static final int URL_BYTES = 4096;
    /** All Dublin Core values of a submission together. */
    public static final int DUBLIN_CORE_BYTES = 16 * 1024;
    /** An error message kept in a status node; longer ones are cut with a marker. */
    public static final int ERROR_MESSAGE_BYTES = 2048;
    /** The body of {@code POST /api/batches}. */
    public static final int JSON_BODY_BYTES = 64 * 1024;

    /** What one read transaction may be asked for, by the most each node it reads may hold. */
    public static final int READ_BYTES = 384 * 1024;
    /** A folder the queue lists whole; larger ones are only counted (Stat) or walked by id. */
    public static final int LISTED_CHILDREN = 20_000;
    /** The most jobs the open states may hold together, so each state folder stays listable. */
    public static final int MAX_OPEN_JOBS = LISTED_CHILDREN / 2;
    /** The job ids kept in a status report's lists (the counts are always whole). */
    public static final int REPORT_LISTED_JOBS = 1000;

    private QueueLimits() {
    }

    /** The most a node of this name may hold: checked when written, so reads can be sized before they are made. */
    public static int nodeBytes(String path) {
        if (path.startsWith(QueuePaths.ACTIVITY + "/steps/")) {
            return 8192; // a host's step times: 48 a state, and 16 a state of each of its last 8 profiles (issue 45)
        }
        if (path.startsWith(QueuePaths.ACTIVITY + "/")) {
            return 4096; // a minute's counts per state and its backlog sample
        }
        // a dashboard session, a user's 20 ids
        if (path.startsWith(QueuePaths.SESSIONS + "/")) { return SESSION_BYTES; }
        if (path.startsWith(QueuePaths.HOSTS + "/")) {
            return NODE_BYTES; // a host's work, at most 200 jobs
        }
        String name = path.substring(path.lastIndexOf('/') + 1);
        return switch (name) {
            case "configuration", "submission", "metadata", "store" -> NODE_BYTES;
            case "inventory" -> 8 * 1024;
            case "status-report" -> 48 * 1024;
            case "status" -> 16 * 1024; // a completed job's summary (its effects whole) beside the history: JobSummary
            case "identifiers", "effects" -> 8 * 1024;
            default -> 1024;
        };
    }

    /** Refuses data larger than its node may hold, before it reaches ZooKeeper. */
    public static byte[] checkNode(String path, byte[] data) {
        int max = nodeBytes(path);
        if (data != null && data.length > max) {
            throw new QueueException(path + " would be " + data.length + " bytes; the limit is " + max
                    + " bytes: nothing was written");
        }
        return data;
    }

    public static int utf8Length(String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Cuts a message to {@link #ERROR_MESSAGE_BYTES}, saying that it was cut; a URL's user and
     * password in it are hidden (the message is shown in the API, the dashboard and reports).
     */
    public static String errorMessage(String message) {
        message = Urls.redactedIn(message);
        if (message == null || utf8Length(message) <= ERROR_MESSAGE_BYTES) {
            return message;
        }
        String marker = " [... cut to " + ERROR_MESSAGE_BYTES + " bytes]";
        int keep = ERROR_MESSAGE_BYTES - marker.length();
        StringBuilder b = new StringBuilder();
        int bytes = 0;
        for (int i = 0; i < message.length(); ) {
            int cp = message.codePointAt(i);
            int n = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + n > keep) {
                break;
            }
            b.appendCodePoint(cp);
            bytes += n;
            i += Character.charCount(cp);
        }
        return b.append(marker).toString();
    }
}
