package org.cdlib.mrt.ingestqueue.api.http;

/**
 * Who may call a route: nobody needs to log in, any listed user, a user with a role, or
 * (working files) a signed URL or a user with the role storage.
 */
public enum Access { PUBLIC, USER, SUBMITTER, ADMIN, STORAGE }
