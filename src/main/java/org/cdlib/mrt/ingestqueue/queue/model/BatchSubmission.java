package org.cdlib.mrt.ingestqueue.queue.model;

import java.util.List;
import java.util.Map;

/**
 * {@code /batches/BID/submission}: what the depositor submitted, fixed at creation. The
 * design's fields first, then what the submission form (CONTRACTS §2) adds.
 *
 * @param type           file, container, object-manifest, batch-manifest,
 *                       container-batch-manifest or single-file-batch-manifest
 * @param notification   recipients that override the profile's, comma separated
 */
public record BatchSubmission(
        String profileName,
        String submitter,
        String payloadUrl,
        String ercWhat,
        String ercWho,
        String ercWhen,
        String ercWhere,
        String type,
        String submissionMode,
        String fileName,
        String localIdentifier,
        String primaryIdentifier,
        String digestType,
        String digestValue,
        String notification,
        String responseForm,
        String note,
        String submitted,
        Map<String, List<String>> dublinCore) {
}
