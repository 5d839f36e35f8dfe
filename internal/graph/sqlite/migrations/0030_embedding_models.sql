-- 0030_embedding_models: every chunk and statute vector records the model
-- that made it (graph.EmbeddingBackfiller), so that `contractgraph reindex
-- --embeddings` can add the vectors an import left out and redo those of
-- another model. Vectors stored before this migration have no model (NULL)
-- and count as missing for every model.
ALTER TABLE chunks ADD COLUMN embedding_model TEXT;
ALTER TABLE statutes ADD COLUMN embedding_model TEXT;
-- The backfill reads texts by model: NULL first, then other models, each
-- group in pk order, and counts those of one model, from these indexes
-- alone. (An embedded chunk row spills its vector onto overflow pages; the
-- column after it is not read without following them.)
CREATE INDEX chunks_embedding_model ON chunks(embedding_model);
CREATE INDEX statutes_embedding_model ON statutes(embedding_model);
