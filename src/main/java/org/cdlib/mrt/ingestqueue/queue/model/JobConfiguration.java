package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.List;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.text.Urls;

/**
 * {@code /jobs/JID/configuration}: what the job is, fixed at creation. The design's fields
 * first; the rest carry what the steps need from the manifest row and the submission.
 *
 * @param payloadUrl   the object's source: a file, a container or an object manifest URL
 * @param payloadType  file, container or object_manifest
 * @param fileName     the name of a single-file payload inside the object
 * @param digestType   a digest the depositor supplied for a single-file or container payload
 */
public record JobConfiguration(
        String batchId,
        String profileName,
        String submitter,
        String payloadUrl,
        String payloadType,
        String responseType,
        String submissionMode,
        String workingDir,
        String localId,
        String fileName,
        String digestType,
        String digestValue,
        Long fileSize,
        String ercWho,
        String ercWhat,
        String ercWhen,
        String ercWhere,
        Map<String, List<String>> dublinCore) {

    /** The fifteen elements of simple Dublin Core, in their usual order: the keys {@link #dublinCore} may carry. */
    public static final List<String> DUBLIN_CORE = List.of(
            "contributor", "coverage", "creator", "date", "description", "format", "identifier", "language",
            "publisher", "relation", "rights", "source", "subject", "title", "type");

    public JobConfiguration withWorkingDir(String dir) {
        return new JobConfiguration(batchId, profileName, submitter, payloadUrl, payloadType, responseType,
                submissionMode, dir, localId, fileName, digestType, digestValue, fileSize, ercWho, ercWhat,
                ercWhen, ercWhere, dublinCore);
    }

    /** As shown to a reader (the API, the dashboard): a credential a neighbour left in the payload URL hidden. */
    public JobConfiguration shown() {
        String url = Urls.redacted(payloadUrl);
        return url == null || url.equals(payloadUrl)
                ? this
                : new JobConfiguration(
                        batchId,
                        profileName,
                        submitter,
                        url,
                        payloadType,
                        responseType,
                        submissionMode,
                        workingDir,
                        localId,
                        fileName,
                        digestType,
                        digestValue,
                        fileSize,
                        ercWho,
                        ercWhat,
                        ercWhen,
                        ercWhere,
                        dublinCore);
    }

    public JobConfiguration withBatchId(String bid) {
        return new JobConfiguration(bid, profileName, submitter, payloadUrl, payloadType, responseType,
                submissionMode, workingDir, localId, fileName, digestType, digestValue, fileSize, ercWho, ercWhat,
                ercWhen, ercWhere, dublinCore);
    }
}
