-- 0040_timelines: how each contract renews (contract.Timeline) and the
-- bounds of its deadlines, one row per contract that states any of it.
-- deadline_first and deadline_last (graph.DeadlineBounds; last NULL when
-- an automatic renewal rolls on without limit) let a date-range query read
-- only the timelines that can reach the range; the dates themselves are
-- worked out in Go (graph.CollectDeadlines, graph.HasNoticeDeadline), the
-- same for every backend.
CREATE TABLE contract_timelines (
    contract_pk        INTEGER PRIMARY KEY REFERENCES contracts(pk) ON DELETE CASCADE,
    renewal_kind       TEXT,
    renewal_count      INTEGER,
    termination_notice TEXT,
    deadline_first     TEXT,
    deadline_last      TEXT
);
CREATE INDEX contract_timelines_kind ON contract_timelines(renewal_kind, contract_pk);
CREATE INDEX contract_timelines_first ON contract_timelines(deadline_first, deadline_last);
-- Contracts stored before this migration have no renewal kind: their one
-- dated deadline is the expiration on their end date.
INSERT INTO contract_timelines(contract_pk, deadline_first, deadline_last)
    SELECT pk, end_date, end_date FROM contracts WHERE end_date IS NOT NULL;
