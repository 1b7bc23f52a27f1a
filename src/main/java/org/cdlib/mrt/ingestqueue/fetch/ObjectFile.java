package org.cdlib.mrt.ingestqueue.fetch;

import java.net.URI;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;

/**
 * One file to fetch for an object.
 *
 * @param name        its name inside the object ({@link SafeName checked}), relative to producer/
 * @param url         where it is fetched from ({@link UrlPolicy checked})
 * @param digestType  the algorithm of a digest the depositor supplied, or null
 * @param digestValue that digest, or null
 * @param size        the size the depositor declared, or null
 */
public record ObjectFile(String name, URI url, DigestAlgorithm digestType, String digestValue, Long size) {

    public boolean hasDigest() {
        return digestType != null && digestValue != null;
    }
}
