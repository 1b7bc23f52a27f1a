-- The work ZooKeeper holds, indexed for search (issue 45): a cache of what the queue's nodes say,
-- filled by the cleanup leader's pass (OpenIndexPass) within seconds of a batch's creation, and
-- forgotten once the work is in history. Search reads it, then checks each hit in ZooKeeper: a
-- row is never taken for the truth. Items are jobs and batches (a batch's own title, local id, ARK).
CREATE TABLE open_items (
    item_id  VARCHAR(64)   NOT NULL PRIMARY KEY,
    batch_id VARCHAR(64)   NOT NULL,
    ark      VARCHAR(255),
    title    VARCHAR(1024)
);
CREATE INDEX open_items_batch ON open_items (batch_id, item_id);
CREATE INDEX open_items_ark ON open_items (ark);

CREATE TABLE open_local_ids (
    local_id VARCHAR(1024) NOT NULL,
    item_id  VARCHAR(64)   NOT NULL,
    PRIMARY KEY (local_id, item_id)
);
CREATE INDEX open_local_ids_item ON open_local_ids (item_id);

CREATE TABLE open_words (
    word    VARCHAR(64) NOT NULL,
    item_id VARCHAR(64) NOT NULL,
    PRIMARY KEY (word, item_id)
);
CREATE INDEX open_words_item ON open_words (item_id);

-- Each batch the pass has seen open: how many of its jobs (in the batch's order) are indexed, and
-- whether that is all of them (its jobs all created, so no more come).
CREATE TABLE open_batches (
    batch_id   VARCHAR(64)              NOT NULL PRIMARY KEY,
    indexed    INT                      NOT NULL,
    whole      BOOLEAN                  NOT NULL,
    checked_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX open_batches_checked ON open_batches (whole, checked_at);

