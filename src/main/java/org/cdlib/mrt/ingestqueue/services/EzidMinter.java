package org.cdlib.mrt.ingestqueue.services;

import java.net.URI;
import org.apache.camel.Exchange;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;

/**
 * EZID (CONTRACTS §4), the two halves of its calls in {@code routes/processing.yaml}: mint
 * ({@code POST <ObjectMinterURL>} with an ANVL body, answer 201 {@code success: ark:/...}) and
 * update ({@code POST /id/<ark>} with the ERC's {@code where} and {@code _target}, answer 200),
 * and the view of an ARK ({@code GET /id/<ark>}, answer 200 {@code success: ark:/...} and its
 * ANVL elements) that tells whether an update whose answer was lost arrived.
 */
public final class EzidMinter {
    private final String user;
    private final String password;
    private final String targetBase;

    /**
     * @param targetBase the landing page prefix an ARK's {@code _target} is made of (the ARK is appended); null: none
     */
    public EzidMinter(String user, String password, String targetBase) {
        this.user = user;
        this.password = password;
        this.targetBase = targetBase;
    }

    /** Whether a minted ARK gets an update (a landing page is configured). */
    public boolean describes() {
        return targetBase != null;
    }

    public void mintRequest(Exchange exchange) throws ServiceException {
        Profile profile = exchange.getProperty(ServiceCall.PROFILE, Profile.class);
        if (profile.objectMinterUrl() == null) {
            throw new ServiceException("profile " + profile.id() + " has no ObjectMinterURL to mint an ARK with");
        }
        StringBuilder body = new StringBuilder();
        anvl(body, "erc", erc(exchange.getProperty(ServiceCall.DESCRIPTION, JobConfiguration.class), "(:tba)"));
        if (profile.owner() != null) {
            anvl(body, "_owner", profile.owner());
        }
        // a mint that may have reached EZID is not sent again: EZID cannot be asked which ARK it gave
        post(exchange, profile.objectMinterUrl(), body, false);
    }

    /** The ARK of a 201 {@code success: ark:/... | ...} answer, as the call's result. */
    public void mintAnswer(Exchange exchange) throws ServiceException {
        String answer = ServiceCall.expect(exchange, 201, "EZID").strip();
        for (String line : answer.split("\r?\n")) {
            if (line.startsWith("success:")) {
                String ark = line.substring("success:".length()).strip().split("\\s*\\|")[0].strip();
                if (ark.startsWith("ark:/")) {
                    exchange.setProperty(ServiceCall.RESULT, ark);
                    return;
                }
            }
        }
        throw new ServiceException(ServiceCall.what(exchange, "EZID") + ": answer has no 'success: ark:/...' line: "
                + (answer.length() > 200 ? answer.substring(0, 200) : answer));
    }

    public void updateRequest(Exchange exchange) {
        String ark = exchange.getProperty(ServiceCall.ARK, String.class);
        StringBuilder body = new StringBuilder();
        anvl(body, "erc", erc(exchange.getProperty(ServiceCall.DESCRIPTION, JobConfiguration.class), ark));
        anvl(body, "_target", targetBase + ark);
        post(exchange, idUrl(exchange), body, true);
    }

    /** {@code GET /id/<ark>}: what EZID holds for the ARK (safe to repeat). */
    public void viewRequest(Exchange exchange) {
        ServiceCall.prepare(exchange, "GET", idUrl(exchange), null, null, true);
        if (user != null) {
            exchange.getIn()
                    .setHeader("Authorization", ServiceCall.basic(user + ":" + (password == null ? "" : password)));
        }
    }

    /**
     * As the call's result, whether the ARK's {@code _target} is already the landing page the
     * update sets (then the update arrived: the two are one request). Any other answer — another
     * target, an error — is {@code false}: the update is idempotent, so sending it is the safe side.
     */
    public void viewAnswer(Exchange exchange) {
        String ark = exchange.getProperty(ServiceCall.ARK, String.class);
        boolean described = false;
        if (ServiceCall.status(exchange) == 200) {
            for (String line : ServiceCall.body(exchange).split("\r?\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).strip().equals("_target")
                        && unescape(line.substring(colon + 1).strip()).equals(targetBase + ark)) {
                    described = true;
                }
            }
        }
        exchange.setProperty(ServiceCall.RESULT, described);
    }

    private static String idUrl(Exchange exchange) {
        Profile profile = exchange.getProperty(ServiceCall.PROFILE, Profile.class);
        return URI.create(profile.objectMinterUrl())
                .resolve("/id/" + exchange.getProperty(ServiceCall.ARK, String.class))
                .toString();
    }

    public void updateAnswer(Exchange exchange) throws ServiceException {
        String answer = ServiceCall.expect(exchange, 200, "EZID");
        if (!answer.strip().startsWith("success:")) {
            throw new ServiceException(ServiceCall.what(exchange, "EZID") + ": answer is not 'success: "
                    + exchange.getProperty(ServiceCall.ARK, String.class) + "'");
        }
    }

    private void post(Exchange exchange, String url, StringBuilder body, boolean repeatable) {
        ServiceCall.prepare(exchange, "POST", url, "text/plain; charset=UTF-8", body.toString(), repeatable);
        if (user != null) {
            exchange.getIn()
                    .setHeader("Authorization", ServiceCall.basic(user + ":" + (password == null ? "" : password)));
        }
    }

    private static String erc(JobConfiguration c, String where) {
        return "who: " + orUnas(c.ercWho()) + "\nwhat: " + orUnas(c.ercWhat()) + "\nwhen: " + orUnas(c.ercWhen())
                + "\nwhere: " + where;
    }

    /** One ANVL element, escaped as EZID requires. */
    static void anvl(StringBuilder out, String name, String value) {
        out.append(escape(name, true)).append(": ").append(escape(value, false)).append('\n');
    }

    static String escape(String s, boolean isName) {
        String e = s.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D");
        return isName ? e.replace(":", "%3A") : e;
    }

    /** An ANVL value as EZID escapes it (percent-encoded {@code %}, line feeds and carriage returns), read back. */
    static String unescape(String s) {
        return s.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%25", "%");
    }

    private static String orUnas(String v) {
        return v == null || v.isBlank() ? "(:unas)" : v;
    }
}
