package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.WorkingDirectory;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code completeStep}, the last step of the notify route: removes the job's working directory
 * (producer/, system/ and what downloading kept). It refuses a directory that does not lie
 * under ingest.home, so a corrupt configuration cannot delete anything else; a directory
 * already gone is fine. Symbolic links inside are removed, never followed.
 */
public final class CompleteStep implements Processor {
    private static final Logger LOG = LoggerFactory.getLogger(CompleteStep.class);

    private final Path ingestHome;

    public CompleteStep(Path ingestHome) {
        this.ingestHome = ingestHome;
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        Job job = JobExchange.job(exchange);
        if (remove(job.configuration().workingDir())) {
            LOG.info("job {} batch {}: removed working directory {}", job.id(), job.batchId(),
                    job.configuration().workingDir());
        }
    }

    /** Removes the directory; false when it was not there. */
    public boolean remove(String workingDir) throws FetchException {
        WorkingDirectory wd;
        try {
            wd = WorkingDirectory.of(ingestHome, workingDir);
        } catch (FetchException e) {
            throw new FetchException("not removing the working directory: " + e.getMessage());
        }
        if (!Files.exists(wd.root(), LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try {
            if (Files.isSymbolicLink(wd.root())) {
                Files.delete(wd.root());
            } else {
                DownloadStep.emptyDirectory(wd.root());
                Files.delete(wd.root());
            }
        } catch (IOException e) {
            throw new FetchException("cannot remove working directory " + wd.root() + ": " + e, e);
        }
        return true;
    }
}
