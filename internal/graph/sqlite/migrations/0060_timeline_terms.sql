-- 0060_timeline_terms: contract_timelines also holds the end date, renewal
-- term and notice period, so that a deadline search reads its candidates
-- from this narrow table (and the contracts row its filter tests) instead
-- of the wide contract_details row of each.
ALTER TABLE contract_timelines ADD COLUMN end_date TEXT;
ALTER TABLE contract_timelines ADD COLUMN renewal_term TEXT;
ALTER TABLE contract_timelines ADD COLUMN notice_period TEXT;
UPDATE contract_timelines SET
    end_date = (SELECT end_date FROM contracts WHERE pk = contract_timelines.contract_pk),
    renewal_term = (SELECT renewal_term FROM contract_details WHERE contract_pk = contract_timelines.contract_pk),
    notice_period = (SELECT notice_period FROM contract_details WHERE contract_pk = contract_timelines.contract_pk);
