package org.cdlib.mrt.ingestqueue.routes;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * What the service logs (logback's root logger) during each test ({@code @RegisterExtension}):
 * to assert what an operator would read.
 */
final class CapturedLogs implements BeforeEachCallback, AfterEachCallback {
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @Override
    public void beforeEach(ExtensionContext context) {
        appender.list.clear();
        appender.start();
        root.addAppender(appender);
    }

    List<ILoggingEvent> events() {
        synchronized (appender) { // the appender adds under its own lock; copy before reading
            return List.copyOf(appender.list);
        }
    }

    /** The ERROR events that carry a stack trace. */
    List<ILoggingEvent> errorsWithTrace() {
        return events().stream().filter(e -> e.getLevel() == Level.ERROR && e.getThrowableProxy() != null).toList();
    }

    List<String> messagesOf(String loggerName) {
        return events().stream()
                .filter(e -> e.getLoggerName().equals(loggerName))
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        root.detachAppender(appender);
        appender.stop();
    }
}
