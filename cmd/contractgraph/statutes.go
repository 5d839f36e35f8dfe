package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/statute"
	"github.com/contractgraph/contractgraph/internal/tools"
)

func newStatutesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "statutes",
		Short: "Import and search the statute knowledge base that risk reviews cite",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newStatutesImportCmd(a), newStatutesSearchCmd(a), newStatutesGetCmd(a))
	return cmd
}

// statuteStore returns the store's statute capability or a clear error.
func statuteStore(store graph.Store) (graph.StatuteStore, error) {
	ss, ok := store.(graph.StatuteStore)
	if !ok {
		return nil, errors.New("this store has no statute knowledge base")
	}
	return ss, nil
}

// addStatuteTools adds statute_search and get_statute to set when store has
// a statute knowledge base; it is for newToolSet.
func addStatuteTools(set *tools.Set, store graph.Store, opts tools.StatuteOptions) error {
	ss, ok := store.(graph.StatuteStore)
	if !ok {
		return nil
	}
	return tools.NewStatuteTools(ss, opts).AddTo(set)
}

// statuteImportFile is one file's line of the import summary.
type statuteImportFile struct {
	File     string   `json:"file"`
	Format   string   `json:"format,omitempty"`
	Statutes int      `json:"statutes"`
	Joined   string   `json:"joined_with,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Bad lists the first of the records that failed alone; BadCount
	// counts them all.
	Bad      []string `json:"bad_records,omitempty"`
	BadCount int      `json:"bad_record_count,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// statuteImportSummary is what `statutes import --json` prints.
type statuteImportSummary struct {
	Files []statuteImportFile `json:"files"`
	graph.StatuteCounts
	Failed int `json:"failed"`
	// BadRecords counts the records that failed alone in files that
	// were otherwise imported.
	BadRecords int `json:"bad_records"`
}

func newStatutesImportCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE...",
		Short: "Import statute files (US Code USLM XML, Taiwan MOJ law JSON, generic JSONL)",
		Long: "Import statute files; the format is detected from the content:\n" +
			"  - US Code titles in USLM XML (uscode.house.gov), one statute per section, id /us/usc/t9/s2;\n" +
			"  - Taiwan Ministry of Justice law JSON, Chinese and English joined on the article number\n" +
			"    (…/ch/X.json and …/en/X.json are joined automatically), id /tw/B0000001/a1;\n" +
			"  - JSON Lines of {id, jurisdiction, code, number, heading, text, url}.\n" +
			"Ids are stable, so importing again updates statutes in place and keeps citations valid.\n" +
			"A malformed file is reported and skipped; the others are imported, and the exit code is 1.",
		Example: `  contractgraph statutes import ../shared/data/statutes/uscode/usc09.xml ../shared/data/statutes/uscode/usc17.xml
  contractgraph statutes import ../shared/data/statutes/tw_moj/ch/B0000001.json`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			store, err := a.openStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			ss, err := statuteStore(store)
			if err != nil {
				return err
			}
			if err := a.importStatutes(ctx, ss, args); err != nil {
				return err
			}
			return a.embedStatutes(ctx, ss)
		},
	}
}

func (a *app) importStatutes(ctx context.Context, ss graph.StatuteStore, paths []string) error {
	paths, err := expandStatutePaths(paths)
	if err != nil {
		return usageError(err)
	}
	sts, results := statute.Load(paths)
	sum := statuteImportSummary{Files: []statuteImportFile{}}
	for _, r := range results {
		f := statuteImportFile{File: r.File, Format: string(r.Format), Statutes: r.Count, Joined: r.Joined, Warnings: r.Warnings, BadCount: r.BadCount}
		for _, b := range r.Bad {
			f.Bad = append(f.Bad, b.Error())
		}
		if r.Err != nil {
			f.Error = r.Err.Error()
			sum.Failed++
		} else {
			sum.BadRecords += r.BadCount
		}
		sum.Files = append(sum.Files, f)
	}
	if len(sts) > 0 {
		counts, err := ss.PutStatutes(ctx, sts)
		if err != nil {
			return fmt.Errorf("import statutes: %w", err)
		}
		sum.StatuteCounts = counts
	}
	if a.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return fmt.Errorf("encode summary: %w", err)
		}
		fmt.Fprintf(a.stdout, "%s\n", b)
	} else {
		for _, f := range sum.Files {
			switch {
			case f.Error != "":
				fmt.Fprintf(a.stderr, "failed  %s\n", f.Error)
			case f.Joined != "" && f.Statutes == 0:
				fmt.Fprintf(a.stdout, "ok      %s: joined with %s\n", f.File, f.Joined)
			default:
				joined := ""
				if f.Joined != "" {
					joined = ", joined with " + f.Joined
				}
				fmt.Fprintf(a.stdout, "ok      %s: %d statutes (%s%s)\n", f.File, f.Statutes, f.Format, joined)
			}
			for _, w := range f.Warnings {
				fmt.Fprintf(a.stderr, "warning %s: %s\n", f.File, w)
			}
			for _, b := range f.Bad {
				fmt.Fprintf(a.stderr, "failed  %s\n", b)
			}
			if more := f.BadCount - len(f.Bad); more > 0 {
				fmt.Fprintf(a.stderr, "failed  %s: … and %d more bad records\n", f.File, more)
			}
		}
		fmt.Fprintf(a.stdout, "%d created, %d updated, %d unchanged; %d of %d files failed", sum.Created, sum.Updated, sum.Unchanged, sum.Failed, len(sum.Files))
		if sum.BadRecords > 0 {
			fmt.Fprintf(a.stdout, ", %d bad records skipped", sum.BadRecords)
		}
		fmt.Fprintln(a.stdout)
	}
	if sum.Failed > 0 || sum.BadRecords > 0 {
		return silentExit(1)
	}
	return nil
}

// embedStatutes embeds every statute that has no vector by the embedding
// model yet when one is configured (--embed-model), so statute_search can
// fuse vector similarity with BM25. The vectors record the model, as
// `contractgraph reindex --embeddings` does.
func (a *app) embedStatutes(ctx context.Context, ss graph.StatuteStore) error {
	eb, ok := ss.(graph.EmbeddingBackfiller)
	model := strings.TrimSpace(a.cfg.EmbedModel)
	if !ok || model == "" {
		return nil
	}
	emb, err := a.openServerEmbedder(ctx)
	if err != nil {
		return err
	}
	bar := newProgressBar(a.stderr, a.cfg.JSON)
	reps, err := retrieve.EmbedMissing(ctx, eb, emb, retrieve.EmbedOptions{
		Model: model, Kinds: []string{graph.EmbedStatutes}, Progress: embedProgress(bar, model),
	})
	bar.clear()
	if err != nil {
		return err
	}
	if !a.cfg.JSON {
		fmt.Fprintf(a.stdout, "%d statutes embedded with %s\n", reps[0].Embedded, model)
	}
	return nil
}

// statuteTools builds the statute tools, hybrid when an embedding model is
// configured.
func (a *app) statuteTools(ctx context.Context, ss graph.StatuteStore) (*tools.StatuteTools, error) {
	st, err := a.stages(ctx)
	if err != nil {
		return nil, err
	}
	opts := tools.StatuteOptions{Expander: st.expander, Reranker: st.reranker}
	if strings.TrimSpace(a.cfg.EmbedModel) != "" {
		emb, err := a.openServerEmbedder(ctx)
		if err != nil {
			return nil, err
		}
		opts.Embedder = emb
	}
	return tools.NewStatuteTools(ss, opts), nil
}

func newStatutesSearchCmd(a *app) *cobra.Command {
	var in tools.StatuteSearchInput
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search statutes by relevance (BM25), optionally within one jurisdiction",
		Example: `  contractgraph statutes search "arbitration agreement valid irrevocable enforceable" --jurisdiction us
  contractgraph statutes search 違約金 --jurisdiction tw --json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			store, err := a.openExistingStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			ss, err := statuteStore(store)
			if err != nil {
				return err
			}
			in.Query = args[0]
			st, err := a.statuteTools(ctx, ss)
			if err != nil {
				return err
			}
			res, err := st.Search(ctx, in)
			var ae *tools.ArgError
			if errors.As(err, &ae) {
				return usageError(err)
			}
			if err != nil {
				return err
			}
			if a.cfg.JSON {
				b, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					return fmt.Errorf("encode result: %w", err)
				}
				_, err = fmt.Fprintf(a.stdout, "%s\n", b)
				return err
			}
			if len(res.Statutes) == 0 {
				fmt.Fprintln(a.stdout, "no statute matched")
				return nil
			}
			for i, s := range res.Statutes {
				fmt.Fprintf(a.stdout, "%d. %s  %s  (score %.2f)\n", i+1, s.Citation, s.StatuteID, s.Score)
				if s.Heading != "" {
					fmt.Fprintf(a.stdout, "   %s\n", s.Heading)
				}
				if s.URL != "" {
					fmt.Fprintf(a.stdout, "   %s\n", s.URL)
				}
				fmt.Fprintf(a.stdout, "   %s\n", oneLine(s.Text, 200))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&in.Jurisdiction, "jurisdiction", "", "only statutes of this jurisdiction, e.g. us or tw")
	cmd.Flags().IntVar(&in.Limit, "limit", 5, "how many statutes to show (1-20)")
	return cmd
}

func newStatutesGetCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Print one statute by its id, e.g. /us/usc/t9/s2",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			store, err := a.openExistingStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			ss, err := statuteStore(store)
			if err != nil {
				return err
			}
			st, err := ss.GetStatute(ctx, args[0])
			if errors.Is(err, graph.ErrNotFound) {
				return usageError(fmt.Errorf("statute %q not found; find ids with `contractgraph statutes search`", args[0]))
			}
			if err != nil {
				return err
			}
			if a.cfg.JSON {
				b, err := json.MarshalIndent(st, "", "  ")
				if err != nil {
					return fmt.Errorf("encode statute: %w", err)
				}
				_, err = fmt.Fprintf(a.stdout, "%s\n", b)
				return err
			}
			fmt.Fprintf(a.stdout, "%s  %s\n", statute.Cite(st), st.ID)
			if st.Heading != "" {
				fmt.Fprintf(a.stdout, "%s\n", st.Heading)
			}
			if st.URL != "" {
				fmt.Fprintf(a.stdout, "%s\n", st.URL)
			}
			_, err = fmt.Fprintf(a.stdout, "\n%s\n", st.Text)
			return err
		},
	}
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// statuteExts are the file extensions a statute directory is searched for.
var statuteExts = map[string]bool{".xml": true, ".json": true, ".jsonl": true}

// expandStatutePaths replaces each directory among paths by the statute
// files (.xml, .json, .jsonl) below it, in name order, so that a whole
// download such as the MOJ's ch/ and en/ folders imports in one command.
func expandStatutePaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil || !info.IsDir() {
			out = append(out, p) // statute.Load reports what is wrong with it
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && statuteExts[strings.ToLower(filepath.Ext(path))] {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read statute directory %s: %w", p, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no statute file (.xml, .json or .jsonl)", p)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}
