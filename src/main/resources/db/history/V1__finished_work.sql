-- Finished work handed over from ZooKeeper (issue 44). Portable between H2 2.x and PostgreSQL:
-- plain types, no dialect. Each record column holds the item as the queue read it (its node JSON),
-- so the API shows a finished batch or job exactly as it showed it live; the other columns are
-- what lookups and searches use, each behind an index.
CREATE TABLE finished_batches (
    batch_id       VARCHAR(64)      NOT NULL PRIMARY KEY,
    state          VARCHAR(32)      NOT NULL,
    reports        INT              NOT NULL,
    submitter      VARCHAR(255),
    profile        VARCHAR(255),
    title          VARCHAR(1024),
    submitted_at   TIMESTAMP WITH TIME ZONE,
    finished_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    jobs           INT              NOT NULL,
    completed_jobs INT              NOT NULL,
    failed_jobs    INT              NOT NULL,
    written_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    record         VARCHAR(1000000) NOT NULL
);
CREATE INDEX finished_batches_finished ON finished_batches (finished_at);
CREATE INDEX finished_batches_submitter ON finished_batches (submitter, finished_at);

CREATE TABLE finished_jobs (
    job_id      VARCHAR(64)      NOT NULL PRIMARY KEY,
    batch_id    VARCHAR(64)      NOT NULL,
    state       VARCHAR(32)      NOT NULL,
    ark         VARCHAR(255),
    title       VARCHAR(1024),
    finished_at TIMESTAMP WITH TIME ZONE,
    record      VARCHAR(1000000) NOT NULL
);
CREATE INDEX finished_jobs_batch ON finished_jobs (batch_id, job_id);
CREATE INDEX finished_jobs_ark ON finished_jobs (ark);
CREATE INDEX finished_jobs_finished ON finished_jobs (finished_at);

-- a job's local ids (a job may carry several)
CREATE TABLE finished_local_ids (
    local_id VARCHAR(1024) NOT NULL,
    job_id   VARCHAR(64)   NOT NULL,
    PRIMARY KEY (local_id, job_id)
);
CREATE INDEX finished_local_ids_job ON finished_local_ids (job_id);

-- the words of a job's or a batch's title, lower case: a title search is an index lookup per word,
-- not a scan of ten million titles
CREATE TABLE finished_words (
    word    VARCHAR(64) NOT NULL,
    item_id VARCHAR(64) NOT NULL,
    PRIMARY KEY (word, item_id)
);
CREATE INDEX finished_words_item ON finished_words (item_id);
