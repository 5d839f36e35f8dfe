-- 0110_query_counts: indexes that let the dev calls read only index
-- entries (or stop after the first rows in order) at a million contracts,
-- and three more counts maintained by triggers in the style of 0105: per
-- date, per governing-law location and per clause-kind bit. Queries read
-- them only where they give the same answer as the base tables (counts.go);
-- aggregates_test.go recounts each from the base tables after every kind
-- of write.

-- The covering index of filters and groupings by contract type covers the
-- currency too, so that amount metrics of one type (per currency) read no
-- table row.
DROP INDEX contracts_type;
CREATE INDEX contracts_type ON contracts(contract_type, effective_date, end_date, total_amount, duration_days, governing_law_pk, clause_bits, unverified, currency);
-- Searches of one type in effective-date order (an unverified date as a
-- missing one, as factsSQL orders) read the first rows in order and stop;
-- end dates, amounts and flags are in the index so that the rows passed
-- over on the way are not read.
CREATE INDEX contracts_type_effective ON contracts(contract_type, iif(unverified & 2, NULL, effective_date), end_date, total_amount, unverified);
-- The ordering by duration, longest first, in the index's own order with
-- the tie-break by id: the first entries are the answer.
CREATE INDEX contracts_duration_fact ON contracts(iif(unverified & 8, NULL, duration_days) DESC, id);
-- Effective-date ranges test the end date and the flags in the index.
DROP INDEX contracts_effective;
CREATE INDEX contracts_effective ON contracts(effective_date, end_date, unverified);
-- Governing-law filters test the clause kinds in the index too.
DROP INDEX contracts_governing_law;
CREATE INDEX contracts_governing_law ON contracts(governing_law_pk, unverified, clause_bits);

-- date_counts: per date (the whole stored value) of the effective and end
-- dates, the contracts with that date, all of them and those whose date is
-- verified (contracts.unverified bits 2 and 4), so that a count over a
-- range of one date sums the dates in it. A date whose count falls to zero
-- keeps its row.
CREATE TABLE date_counts (
    field              TEXT NOT NULL CHECK (field IN ('effective', 'end')),
    day                TEXT NOT NULL,
    contracts          INTEGER NOT NULL,
    verified_contracts INTEGER NOT NULL,
    PRIMARY KEY (field, day)
) WITHOUT ROWID;

CREATE TRIGGER date_counts_insert AFTER INSERT ON contracts
BEGIN
    INSERT INTO date_counts(field, day, contracts, verified_contracts)
    SELECT 'effective', NEW.effective_date, 1, (NEW.unverified & 2) = 0 WHERE NEW.effective_date IS NOT NULL
    ON CONFLICT(field, day) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
    INSERT INTO date_counts(field, day, contracts, verified_contracts)
    SELECT 'end', NEW.end_date, 1, (NEW.unverified & 4) = 0 WHERE NEW.end_date IS NOT NULL
    ON CONFLICT(field, day) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
END;

CREATE TRIGGER date_counts_delete AFTER DELETE ON contracts
BEGIN
    UPDATE date_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 2) = 0)
    WHERE field = 'effective' AND day = OLD.effective_date;
    UPDATE date_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 4) = 0)
    WHERE field = 'end' AND day = OLD.end_date;
END;

CREATE TRIGGER date_counts_update AFTER UPDATE OF effective_date, end_date, unverified ON contracts
BEGIN
    UPDATE date_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 2) = 0)
    WHERE field = 'effective' AND day = OLD.effective_date;
    UPDATE date_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 4) = 0)
    WHERE field = 'end' AND day = OLD.end_date;
    INSERT INTO date_counts(field, day, contracts, verified_contracts)
    SELECT 'effective', NEW.effective_date, 1, (NEW.unverified & 2) = 0 WHERE NEW.effective_date IS NOT NULL
    ON CONFLICT(field, day) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
    INSERT INTO date_counts(field, day, contracts, verified_contracts)
    SELECT 'end', NEW.end_date, 1, (NEW.unverified & 4) = 0 WHERE NEW.end_date IS NOT NULL
    ON CONFLICT(field, day) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
END;

INSERT INTO date_counts(field, day, contracts, verified_contracts)
    SELECT 'effective', effective_date, count(*), count(*) FILTER (WHERE (unverified & 2) = 0)
    FROM contracts WHERE effective_date IS NOT NULL GROUP BY effective_date;
INSERT INTO date_counts(field, day, contracts, verified_contracts)
    SELECT 'end', end_date, count(*), count(*) FILTER (WHERE (unverified & 4) = 0)
    FROM contracts WHERE end_date IS NOT NULL GROUP BY end_date;

-- law_counts: per governing-law location, its contracts, all of them and
-- those whose governing law is verified (contracts.unverified bit 32).
CREATE TABLE law_counts (
    location_pk        INTEGER PRIMARY KEY REFERENCES locations(pk) ON DELETE CASCADE,
    contracts          INTEGER NOT NULL,
    verified_contracts INTEGER NOT NULL
);

CREATE TRIGGER law_counts_insert AFTER INSERT ON contracts WHEN NEW.governing_law_pk IS NOT NULL
BEGIN
    INSERT INTO law_counts(location_pk, contracts, verified_contracts)
    VALUES (NEW.governing_law_pk, 1, (NEW.unverified & 32) = 0)
    ON CONFLICT(location_pk) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
END;

CREATE TRIGGER law_counts_delete AFTER DELETE ON contracts WHEN OLD.governing_law_pk IS NOT NULL
BEGIN
    UPDATE law_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 32) = 0)
    WHERE location_pk = OLD.governing_law_pk;
END;

CREATE TRIGGER law_counts_update AFTER UPDATE OF governing_law_pk, unverified ON contracts
BEGIN
    UPDATE law_counts SET contracts = contracts - 1, verified_contracts = verified_contracts - ((OLD.unverified & 32) = 0)
    WHERE location_pk = OLD.governing_law_pk;
    INSERT INTO law_counts(location_pk, contracts, verified_contracts)
    SELECT NEW.governing_law_pk, 1, (NEW.unverified & 32) = 0 WHERE NEW.governing_law_pk IS NOT NULL
    ON CONFLICT(location_pk) DO UPDATE SET
        contracts = contracts + 1, verified_contracts = verified_contracts + excluded.verified_contracts;
END;

INSERT INTO law_counts(location_pk, contracts, verified_contracts)
    SELECT governing_law_pk, count(*), count(*) FILTER (WHERE (unverified & 32) = 0)
    FROM contracts WHERE governing_law_pk IS NOT NULL GROUP BY governing_law_pk;

-- clause_counts: per bit of contracts.clause_bits (clause_kinds), the
-- contracts with it set. A kind gets its bit before any contract has it,
-- so the kinds of clause_kinds name every bit that is set.
CREATE TABLE clause_counts (
    bit       INTEGER PRIMARY KEY,
    contracts INTEGER NOT NULL
);

CREATE TRIGGER clause_counts_insert AFTER INSERT ON contracts WHEN NEW.clause_bits <> 0
BEGIN
    INSERT INTO clause_counts(bit, contracts)
    SELECT bit, 1 FROM clause_kinds WHERE NEW.clause_bits & (1 << bit) <> 0
    ON CONFLICT(bit) DO UPDATE SET contracts = contracts + 1;
END;

CREATE TRIGGER clause_counts_delete AFTER DELETE ON contracts WHEN OLD.clause_bits <> 0
BEGIN
    UPDATE clause_counts SET contracts = contracts - 1 WHERE OLD.clause_bits & (1 << bit) <> 0;
END;

CREATE TRIGGER clause_counts_update AFTER UPDATE OF clause_bits ON contracts
BEGIN
    UPDATE clause_counts SET contracts = contracts - 1 WHERE OLD.clause_bits & (1 << bit) <> 0;
    INSERT INTO clause_counts(bit, contracts)
    SELECT bit, 1 FROM clause_kinds WHERE NEW.clause_bits & (1 << bit) <> 0
    ON CONFLICT(bit) DO UPDATE SET contracts = contracts + 1;
END;

-- One pass over the contracts: their distinct bit sets, then the bits of each.
INSERT INTO clause_counts(bit, contracts)
    SELECT k.bit, sum(g.n) FROM (SELECT clause_bits AS bits, count(*) AS n FROM contracts WHERE clause_bits <> 0 GROUP BY clause_bits) g
    JOIN clause_kinds k ON g.bits & (1 << k.bit) <> 0
    GROUP BY k.bit;

-- type_amounts: per contract type, stored currency ('' for none) and
-- flags (contracts.unverified & 17, the type and amount bits, plus 256 for
-- no currency), the contracts, those with an amount, and the sums of the
-- amounts as integers: an integral amount below 2^53 in magnitude adds to
-- int_sum and abs_sum, any other amount counts as inexact. Integer sums
-- stay exact (an overflow turns them REAL, which queries test), so that
-- where no amount is inexact and abs_sum is small enough for every partial
-- sum of the amounts to be exact in floating point, the sums and averages
-- of the grouping by contract type equal the base tables' to the bit
-- (query.go, typeAmountsUsable).
CREATE TABLE type_amounts (
    contract_type TEXT NOT NULL,
    currency      TEXT NOT NULL,
    flags         INTEGER NOT NULL,
    contracts     INTEGER NOT NULL,
    amounts       INTEGER NOT NULL,
    int_sum       INTEGER NOT NULL,
    abs_sum       INTEGER NOT NULL,
    inexact       INTEGER NOT NULL,
    PRIMARY KEY (contract_type, currency, flags)
) WITHOUT ROWID;

CREATE TRIGGER type_amounts_insert AFTER INSERT ON contracts WHEN NEW.contract_type IS NOT NULL
BEGIN
    INSERT INTO type_amounts(contract_type, currency, flags, contracts, amounts, int_sum, abs_sum, inexact)
    SELECT NEW.contract_type, coalesce(NEW.currency, ''), (NEW.unverified & 17) | iif(NEW.currency IS NULL, 256, 0), 1,
        NEW.total_amount IS NOT NULL, iif(x, CAST(NEW.total_amount AS INTEGER), 0), iif(x, abs(CAST(NEW.total_amount AS INTEGER)), 0),
        NEW.total_amount IS NOT NULL AND NOT x
    FROM (SELECT coalesce(abs(NEW.total_amount) < 9007199254740992.0 AND NEW.total_amount = round(NEW.total_amount), 0) AS x)
    WHERE true
    ON CONFLICT(contract_type, currency, flags) DO UPDATE SET
        contracts = contracts + 1, amounts = amounts + excluded.amounts, int_sum = int_sum + excluded.int_sum,
        abs_sum = abs_sum + excluded.abs_sum, inexact = inexact + excluded.inexact;
END;

CREATE TRIGGER type_amounts_delete AFTER DELETE ON contracts WHEN OLD.contract_type IS NOT NULL
BEGIN
    UPDATE type_amounts SET contracts = contracts - 1, amounts = amounts - (OLD.total_amount IS NOT NULL),
        int_sum = int_sum - (SELECT iif(x, CAST(OLD.total_amount AS INTEGER), 0) FROM (SELECT coalesce(abs(OLD.total_amount) < 9007199254740992.0 AND OLD.total_amount = round(OLD.total_amount), 0) AS x)),
        abs_sum = abs_sum - (SELECT iif(x, abs(CAST(OLD.total_amount AS INTEGER)), 0) FROM (SELECT coalesce(abs(OLD.total_amount) < 9007199254740992.0 AND OLD.total_amount = round(OLD.total_amount), 0) AS x)),
        inexact = inexact - (SELECT OLD.total_amount IS NOT NULL AND NOT x FROM (SELECT coalesce(abs(OLD.total_amount) < 9007199254740992.0 AND OLD.total_amount = round(OLD.total_amount), 0) AS x))
    WHERE contract_type = OLD.contract_type AND currency = coalesce(OLD.currency, '') AND flags = (OLD.unverified & 17) | iif(OLD.currency IS NULL, 256, 0);
END;

CREATE TRIGGER type_amounts_update AFTER UPDATE OF contract_type, currency, total_amount, unverified ON contracts
BEGIN
    UPDATE type_amounts SET contracts = contracts - 1, amounts = amounts - (OLD.total_amount IS NOT NULL),
        int_sum = int_sum - (SELECT iif(x, CAST(OLD.total_amount AS INTEGER), 0) FROM (SELECT coalesce(abs(OLD.total_amount) < 9007199254740992.0 AND OLD.total_amount = round(OLD.total_amount), 0) AS x)),
        abs_sum = abs_sum - (SELECT iif(x, abs(CAST(OLD.total_amount AS INTEGER)), 0) FROM (SELECT coalesce(abs(OLD.total_amount) < 9007199254740992.0 AND OLD.total_amount = round(OLD.total_amount), 0) AS x)),
        inexact = inexact - (SELECT OLD.total_amount IS NOT NULL AND NOT x FROM (SELECT coalesce(abs(OLD.total_amount) < 9007199254740992.0 AND OLD.total_amount = round(OLD.total_amount), 0) AS x))
    WHERE contract_type = OLD.contract_type AND currency = coalesce(OLD.currency, '') AND flags = (OLD.unverified & 17) | iif(OLD.currency IS NULL, 256, 0);
    INSERT INTO type_amounts(contract_type, currency, flags, contracts, amounts, int_sum, abs_sum, inexact)
    SELECT NEW.contract_type, coalesce(NEW.currency, ''), (NEW.unverified & 17) | iif(NEW.currency IS NULL, 256, 0), 1,
        NEW.total_amount IS NOT NULL, iif(x, CAST(NEW.total_amount AS INTEGER), 0), iif(x, abs(CAST(NEW.total_amount AS INTEGER)), 0),
        NEW.total_amount IS NOT NULL AND NOT x
    FROM (SELECT coalesce(abs(NEW.total_amount) < 9007199254740992.0 AND NEW.total_amount = round(NEW.total_amount), 0) AS x)
    WHERE NEW.contract_type IS NOT NULL
    ON CONFLICT(contract_type, currency, flags) DO UPDATE SET
        contracts = contracts + 1, amounts = amounts + excluded.amounts, int_sum = int_sum + excluded.int_sum,
        abs_sum = abs_sum + excluded.abs_sum, inexact = inexact + excluded.inexact;
END;

INSERT INTO type_amounts(contract_type, currency, flags, contracts, amounts, int_sum, abs_sum, inexact)
    SELECT contract_type, coalesce(currency, ''), (unverified & 17) | iif(currency IS NULL, 256, 0), count(*), count(total_amount),
        sum(iif(x, CAST(total_amount AS INTEGER), 0)), sum(iif(x, abs(CAST(total_amount AS INTEGER)), 0)), sum(total_amount IS NOT NULL AND NOT x)
    FROM (SELECT contract_type, currency, unverified, total_amount,
            coalesce(abs(total_amount) < 9007199254740992.0 AND total_amount = round(total_amount), 0) AS x
        FROM contracts WHERE contract_type IS NOT NULL)
    GROUP BY 1, 2, 3;
