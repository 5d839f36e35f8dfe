// Package eval measures ContractGraph's quality with real models, for the
// `contractgraph eval` commands and for CI.
//
// # Answers
//
// [Answers] runs the agent under test over a question file (see
// [ReadQuestionFile] for the JSON Lines and CSV formats), one question at a
// time, at temperature 0 with a fixed seed, and records per question which
// tools the model called with which arguments and what they returned, the
// answer, its tokens, model calls and latency, and four checks:
//
//   - tool correctness: the result of some call of the model equals the
//     result of the question's expected call on the same store, compared by
//     result shape so that equivalent arguments count as right (see
//     compare.go for the rule per tool);
//   - figures: the answer states every must_contain entry, tolerant of
//     number and date formatting;
//   - citations: every contract the answer names was returned by a tool in
//     that run;
//   - with a [Judge], an LLM's grades of correctness and faithfulness (1 to
//     5) and a satisfactory verdict against the reference answer.
//
// A question passes when it was answered without error and every check
// that applies holds; a run's score is the share of questions passed.
// [WriteAnswerReports] writes a JSON file per run, a Markdown summary and a
// self-contained HTML report.
//
// # Extraction, retrieval and risk
//
// [ScoreExtraction] compares extracted contracts with CUAD's expert
// answers ([ReadGold], through the CUAD importer): per-field precision,
// recall and F1, clause presence per category, and the share of stored
// values whose evidence quote is at its offsets ([CheckEvidence]).
// [Retrieval] measures clause search's recall@k and MRR on CUAD's
// annotated spans, BM25 and hybrid side by side. [RiskEval] runs the risk
// review on many contracts and counts the citations proposed, kept and
// removed, and the clause quotes verified. Their reports render as text,
// Markdown and HTML from one layout (sections.go). docs/EVALUATION.md
// defines every score.
//
// # Reports
//
// report.go holds what every evaluation's reports share: [DefaultDir],
// [WriteFile] and [WriteJSON], [MarkdownTable], [Share] and [Ratio], the
// inline-SVG bar [Chart] and [WritePage] for a self-contained HTML page
// with the common [Stylesheet].
//
// The package depends on the agent and tools only through their exported
// APIs (agent.Agent, agent.Toolbox, agent events), so it can measure any
// version of the agent that has them.
package eval
