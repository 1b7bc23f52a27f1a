package org.cdlib.mrt.ingestqueue.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.cdlib.mrt.ingestqueue.mail.Mailer;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.Batch;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.services.StoredVersion;
import org.cdlib.mrt.ingestqueue.text.Text;

/**
 * The mails a depositor gets (CONTRACTS §9): "queued", and the completion or update report.
 * Each value taken from a submission or a job stays on its line ({@link Text#oneLine}): a
 * submitter or an error holding a line break cannot add a line ("Status: COMPLETED") of its own.
 */
public final class DepositorMail {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final String from;
    /** How the listed jobs were stored (mode and version), by job id, those known; looked up once a report. */
    private volatile Function<List<Job>, Map<String, StoredVersion>> versions = jobs -> Map.of();

    public DepositorMail(String from) {
        this.from = from;
    }

    /** Reports say how each completed job was stored, looked up by {@code versions}. */
    public DepositorMail withVersions(Function<List<Job>, Map<String, StoredVersion>> versions) {
        this.versions = versions;
        return this;
    }

    /** The depositor's status page of a batch (null: no link in the mail). */
    private volatile Function<String, String> statusLink = bid -> null;

    /** The "queued" mail links to the batch's status page made by {@code link}. */
    public DepositorMail withStatusLinks(Function<String, String> link) {
        this.statusLink = link;
        return this;
    }

    /** The submission's {@code notification} recipients when given, else the profile's. */
    public static List<String> recipients(Batch batch, Profile profile) {
        String n = batch.submission().notification();
        if (n != null && !n.isBlank()) {
            return Arrays.stream(n.split("[,;\\s]+")).filter(s -> !s.isBlank()).toList();
        }
        return profile == null ? List.of() : profile.notifications();
    }

    public MimeMessage queued(Batch batch, List<String> to) throws Exception {
        String body = "Submission ID: " + batch.id() + "\n"
                + "Jobs queued: "
                + (batch.status().jobsTotal() != null
                        ? batch.status().jobsTotal()
                        : batch.status().jobsCreated()) + "\n"
                + "Submitter: " + Text.oneLine(batch.submission().submitter()) + "\n"
                + "Submission date: " + Text.oneLine(batch.submission().submitted()) + "\n"
                + "Status: QUEUED\n"
                + (statusLink.apply(batch.id()) == null
                        ? ""
                        : "Follow its progress: " + statusLink.apply(batch.id()) + "\n");
        MimeMessage m = message(to, "Ingest: OK -- Submission Queued: " + batch.id());
        m.setText(body, "UTF-8");
        return m;
    }

    /**
     * The completion report; with {@code recovered} non-null, the update report naming the jobs
     * that succeeded since the last report.
     */
    public MimeMessage report(
            Batch batch, List<Job> completed, List<Job> failed, List<String> recovered, List<String> to)
            throws Exception {
        return report(batch, new BatchTally(completed.size(), failed.size(), 0, completed, failed), recovered, to);
    }

    MimeMessage report(Batch batch, BatchTally outcome, List<String> recovered, List<String> to) throws Exception {
        List<Job> completed = outcome.completed();
        List<Job> failed = outcome.failed();
        boolean ok = outcome.failedCount() == 0 && batch.status().errorMessage() == null;
        StringBuilder b = new StringBuilder();
        if (recovered != null) {
            b.append("Update report: ").append(recovered.size()).append(" job(s) succeeded since the last report")
                    .append(recovered.isEmpty() ? "" : " (" + String.join(", ", recovered) + ")").append("\n");
        }
        b.append("Submission ID: ").append(batch.id()).append('\n')
                .append("Pending jobs: ").append(outcome.openCount()).append('\n')
                .append("Completed jobs: ").append(outcome.completedCount()).append('\n')
                .append("Failed jobs: ").append(outcome.failedCount()).append('\n')
                .append("Submitter: ").append(Text.oneLine(batch.submission().submitter())).append('\n')
                .append("Submission date: ").append(Text.oneLine(batch.submission().submitted())).append('\n')
                .append("Completion date: ").append(Instant.now()).append('\n')
                .append("Status: ").append(ok ? "COMPLETED" : "FAILED").append('\n');
        if (!outcome.listsAll()) {
            b.append("The attachments list the first ")
                    .append(BatchTally.LISTED)
                    .append(" jobs of each kind; GET /api/jobs?batch=")
                    .append(batch.id())
                    .append(" pages through all.\n");
        }
        List<Job> listed = new ArrayList<>(completed);
        listed.addAll(failed);
        Map<String, StoredVersion> known = versions.apply(listed);
        List<String> stored = new ArrayList<>();
        for (Job j : completed) {
            StoredVersion v = known.get(j.id());
            if (v != null) {
                stored.add(j.id() + ": " + v.ark() + " version " + v.version() + " (" + v.mode() + " mode"
                        + (v.deleted().isEmpty() ? "" : ", " + v.deleted().size() + " file(s) deleted") + ")");
            }
        }
        if (!stored.isEmpty()) {
            b.append("Stored:\n");
            stored.stream().limit(100).forEach(l -> b.append("  ").append(l).append('\n'));
            if (stored.size() > 100) {
                b.append("  ... and ").append(stored.size() - 100).append(" more in completed.json\n");
            }
        }
        if (batch.status().errorMessage() != null) {
            b.append("Error: ").append(Text.oneLine(DepositorPayload.of(batch.submission().payloadUrl(),
                    batch.submission().fileName()).inText(batch.status().errorMessage()))).append('\n');
        } else if (!failed.isEmpty()) {
            Job first = failed.get(0);
            b.append("First failure: ")
                    .append(first.id())
                    .append(": ")
                    .append(Text.oneLine(
                            DepositorPayload.of(first).inText(first.status().errorMessage())))
                    .append('\n');
        }
        MimeMessage m = message(to, "Ingest: " + (ok ? "OK" : "FAIL") + " -- Submission Processed: " + batch.id());
        MimeMultipart parts = new MimeMultipart();
        MimeBodyPart text = new MimeBodyPart();
        text.setText(b.toString(), "UTF-8");
        parts.addBodyPart(text);
        parts.addBodyPart(attachment("completed.json", completed, known));
        parts.addBodyPart(attachment("failed.json", failed, known));
        m.setContent(parts);
        return m;
    }

    private MimeMessage message(List<String> to, String subject) throws Exception {
        MimeMessage m = new MimeMessage(Mailer.session());
        m.setFrom(new InternetAddress(from));
        for (String r : to) {
            m.addRecipient(Message.RecipientType.TO, new InternetAddress(r, true));
        }
        m.setSubject(subject, "UTF-8");
        m.setSentDate(new Date());
        return m;
    }

    private MimeBodyPart attachment(String name, List<Job> jobs, Map<String, StoredVersion> known) throws Exception {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Job j : jobs) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("job_id", j.id());
            e.put("status", j.state().wire());
            e.put("primary_id", j.identifiers().primary());
            e.put("local_id", j.identifiers().localId());
            DepositorPayload payload = DepositorPayload.of(j);
            e.put("payload", payload.name());
            if (j.status().errorMessage() != null) {
                e.put("error_message", payload.inText(j.status().errorMessage()));
            }
            StoredVersion v = known.get(j.id());
            if (v != null) {
                e.put("storage_mode", v.mode());
                e.put("version", v.version());
                if (!v.deleted().isEmpty()) {
                    e.put("deleted", v.deleted());
                }
            }
            list.add(e);
        }
        MimeBodyPart p = new MimeBodyPart();
        p.setFileName(name);
        p.setContent(
                new String(JSON.writeValueAsBytes(list), StandardCharsets.UTF_8), "application/json; charset=UTF-8");
        return p;
    }
}
