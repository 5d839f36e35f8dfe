package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// Values of --rerank (CONTRACTGRAPH_RERANK) and --expand
// (CONTRACTGRAPH_EXPAND).
const (
	stageOff       = "off"
	rerankLexical  = "lexical"
	stageModel     = "model"
	expandThesaurs = "thesaurus"
)

// Defaults of the retrieval stages, chosen by `eval retrieval` on CUAD
// (docs/EVALUATION.md): the thesaurus expansion helps (recall@5 0.680 →
// 0.794 on the first 20 contracts) and is on for queries scoped to
// contracts (retrieve.Options.ExpandUnscoped: over the whole store it more
// than doubled the latency at 100k); the lexical reranker hurts
// (0.630, and 0.726 after expansion) and is off, as is the model reranker,
// which could not be measured at scale on this machine; de-duplication
// changes nothing there (CUAD's chunks do not overlap) and is on for the
// clause and chunk passages of extracted contracts, which do; sections
// read each hit's contract and change no ranking, so they are asked for.
const (
	defaultRerank   = stageOff
	defaultExpand   = expandThesaurs
	defaultDedup    = true
	defaultSections = false
	// defaultSummaryMeaning: off, because with the local e5-small model
	// about 4 in 10 of the contracts it added to summary_search on the
	// reference import were not about the search (docs/EVALUATION.md,
	// "summary_search by meaning"), and contract_search's count is the
	// answer.
	defaultSummaryMeaning = false
)

// retrievalStages are the stages clause_search and statute_search run
// after the first-stage ranking, as --rerank, --expand, --dedup and
// --sections configure them.
type retrievalStages struct {
	expander retrieve.Expander
	reranker retrieve.Reranker
	dedup    bool
	sections bool
}

// stages resolves the retrieval-stage flags. The model stages use --model
// at temperature 0 and fail the command when no model is configured.
func (a *app) stages(ctx context.Context) (retrievalStages, error) {
	var st retrievalStages
	var model llm.Model
	needModel := func(flag string) error {
		if model != nil {
			return nil
		}
		m, err := a.openModel(ctx)
		if err != nil {
			return usageError(fmt.Errorf("%s model: %w", flag, err))
		}
		model = m
		return nil
	}
	zero := 0.0
	switch v := strings.ToLower(strings.TrimSpace(a.cfg.Expand)); v {
	case stageOff:
	case "", expandThesaurs:
		st.expander = retrieve.DefaultThesaurus()
	case stageModel:
		if err := needModel("--expand"); err != nil {
			return st, err
		}
		// The thesaurus first: a failing model still leaves its phrases.
		st.expander = retrieve.Expanders{retrieve.DefaultThesaurus(), retrieve.ModelExpander{Model: model, Temperature: &zero}}
	default:
		return st, usageError(fmt.Errorf("--expand (CONTRACTGRAPH_EXPAND) %q: want %s, %s or %s", a.cfg.Expand, stageOff, expandThesaurs, stageModel))
	}
	switch v := strings.ToLower(strings.TrimSpace(a.cfg.Rerank)); v {
	case stageOff:
	case "", rerankLexical:
		st.reranker = retrieve.Lexical{}
	case stageModel:
		if err := needModel("--rerank"); err != nil {
			return st, err
		}
		st.reranker = retrieve.ModelReranker{Model: model, Temperature: &zero}
	default:
		return st, usageError(fmt.Errorf("--rerank (CONTRACTGRAPH_RERANK) %q: want %s, %s or %s", a.cfg.Rerank, stageOff, rerankLexical, stageModel))
	}
	st.dedup, st.sections = a.cfg.Dedup, a.cfg.Sections
	return st, nil
}

// clauseSearcher is clause_search's searcher: hybrid with --embed-model
// (embedder non-nil), with the configured stages.
func (a *app) clauseSearcher(st retrievalStages, store graph.Store, embedder llm.Embedder) *retrieve.Searcher {
	opts := retrieve.Options{Expander: st.expander, Reranker: st.reranker, Dedup: st.dedup, Sections: st.sections, Log: a.log}
	if embedder != nil {
		// The vector half compares only this model's vectors, and says once
		// when the store has none.
		opts.Embedder, opts.Model = embedder, a.cfg.EmbedModel
	}
	return retrieve.New(store, opts)
}
