package org.cdlib.mrt.ingestqueue.services;

/** What storage answered: the object and its new version number. */
public record StoredVersion(String ark, int version, String manifestUrl) {
}
