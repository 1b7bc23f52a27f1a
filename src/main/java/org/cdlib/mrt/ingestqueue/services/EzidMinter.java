package org.cdlib.mrt.ingestqueue.services;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.cdlib.mrt.ingestqueue.profile.Profile;
import org.cdlib.mrt.ingestqueue.queue.Job;
import org.cdlib.mrt.ingestqueue.queue.JobConfiguration;

/** EZID (CONTRACTS §4): {@code POST <ObjectMinterURL>} with an ANVL body, answer {@code success: ark:/...}. */
public final class EzidMinter implements Minter {
    private final HttpService http;
    private final String user;
    private final String password;
    private final String targetBase;

    /** @param targetBase the landing page prefix an ARK's {@code _target} is made of (the ARK is appended); null: none */
    public EzidMinter(HttpService http, String user, String password, String targetBase) {
        this.http = http;
        this.user = user;
        this.password = password;
        this.targetBase = targetBase;
    }

    @Override
    public String mint(Profile profile, Job job) throws ServiceException, InterruptedException {
        if (profile.objectMinterUrl() == null) {
            throw new ServiceException("profile " + profile.id() + " has no ObjectMinterURL to mint an ARK with");
        }
        JobConfiguration c = job.configuration();
        String erc = "who: " + orUnas(c.ercWho()) + "\nwhat: " + orUnas(c.ercWhat()) + "\nwhen: " + orUnas(c.ercWhen())
                + "\nwhere: (:tba)";
        StringBuilder body = new StringBuilder();
        anvl(body, "erc", erc);
        if (profile.owner() != null) {
            anvl(body, "_owner", profile.owner());
        }
        HttpResponse<String> r = HttpService.expect(http.sendOnce(post(URI.create(profile.objectMinterUrl()), body)), 201, "EZID");
        String answer = r.body() == null ? "" : r.body().strip();
        for (String line : answer.split("\r?\n")) {
            if (line.startsWith("success:")) {
                String ark = line.substring("success:".length()).strip().split("\\s*\\|")[0].strip();
                if (ark.startsWith("ark:/")) {
                    return ark;
                }
            }
        }
        throw new ServiceException("EZID POST " + profile.objectMinterUrl() + ": answer has no 'success: ark:/...' line: "
                + (answer.length() > 200 ? answer.substring(0, 200) : answer));
    }

    /** Update ({@code POST /id/<ark>}): the ERC with the ARK as where, and the landing page as {@code _target}. */
    @Override
    public void describe(Profile profile, Job job, String ark) throws ServiceException, InterruptedException {
        if (targetBase == null || profile.objectMinterUrl() == null) {
            return;
        }
        JobConfiguration c = job.configuration();
        StringBuilder body = new StringBuilder();
        anvl(body, "erc", "who: " + orUnas(c.ercWho()) + "\nwhat: " + orUnas(c.ercWhat()) + "\nwhen: " + orUnas(c.ercWhen())
                + "\nwhere: " + ark);
        anvl(body, "_target", targetBase + ark);
        URI minter = URI.create(profile.objectMinterUrl());
        URI id = minter.resolve("/id/" + ark);
        HttpResponse<String> r = HttpService.expect(http.send(post(id, body)), 200, "EZID");
        if (r.body() == null || !r.body().strip().startsWith("success:")) {
            throw new ServiceException("EZID POST " + id + ": answer is not 'success: " + ark + "'");
        }
    }

    private HttpRequest post(URI uri, StringBuilder body) {
        HttpRequest.Builder b = http.request(uri)
                .header("Content-Type", "text/plain; charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        if (user != null) {
            b.header("Authorization", HttpService.basic(user + ":" + (password == null ? "" : password)));
        }
        return b.build();
    }

    /** One ANVL element, escaped as EZID requires. */
    static void anvl(StringBuilder out, String name, String value) {
        out.append(escape(name, true)).append(": ").append(escape(value, false)).append('\n');
    }

    static String escape(String s, boolean isName) {
        String e = s.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D");
        return isName ? e.replace(":", "%3A") : e;
    }

    private static String orUnas(String v) {
        return v == null || v.isBlank() ? "(:unas)" : v;
    }
}
