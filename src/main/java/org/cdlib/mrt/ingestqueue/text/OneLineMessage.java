package org.cdlib.mrt.ingestqueue.text;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * Logback's {@code %msg} as the queue's configurations define it: the message on one line
 * ({@link Text#oneLine}) with the user information of any URL in it hidden ({@link Urls}). One
 * event is one line whatever a field it names holds, so a submitter or local id with a line
 * break cannot write a line of its own (a forged audit line), and no password in a URL reaches
 * the log. A stack trace ({@code %ex}) is still printed on its lines after the message.
 */
public final class OneLineMessage extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
        return Text.oneLine(Urls.redactedIn(event.getFormattedMessage()));
    }
}
