-- A job's outside effects (/jobs/JID/effects) when its status does not carry them: a completed
-- job's are folded into its status (JobCompaction) and so in its record; a failed job's are here.
ALTER TABLE finished_jobs ADD COLUMN effects VARCHAR(1000000);
