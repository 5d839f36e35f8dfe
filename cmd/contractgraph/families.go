package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/family"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// errNoLinks is a store without the contract links capability.
var errNoLinks = errors.New("this store cannot record contract families")

func newFamiliesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "families",
		Short: "Find and list amendments, restatements and supplements of master agreements",
		Long: `A contract family is a master agreement with the documents that amend it
(amendments, amended and restated versions: AMENDS) or add to it (statements
of work, schedules, addenda, orders: SUPPLEMENTS). Detection reads each
contract's title and the opening of its text for a reference such as
"Amendment No. 2 to the Distribution Agreement dated as of March 1, 1999",
then finds the master among the contracts that share a party with it, by
the agreement's name and date. It runs after every import; 'families detect'
runs it again. References whose master is not in the store are listed as
unresolved.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newFamiliesDetectCmd(a), newFamiliesListCmd(a))
	return cmd
}

func newFamiliesDetectCmd(a *app) *cobra.Command {
	var dryRun bool
	var threshold float64
	cmd := &cobra.Command{
		Use:   "detect",
		Short: "Detect amendment and supplement links between stored contracts",
		Long: `Detect reads every stored contract, proposes (Contract)-[:AMENDS|SUPPLEMENTS]->(Contract)
links at or above --threshold, and replaces the detected links with them (links
recorded by hand are kept). It prints each link with its confidence and the
amending contract's words, and each reference whose master was not found.
--dry-run changes nothing.`,
		Example: `  contractgraph families detect
  contractgraph families detect --dry-run --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if threshold <= 0 || threshold > 1 {
				return usageError(fmt.Errorf("--threshold %g: must be in (0, 1]", threshold))
			}
			store, err := a.openExistingStore(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			bar := newProgressBar(a.stderr, a.cfg.JSON)
			res, err := a.runFamilies(cmd.Context(), store, family.Options{Threshold: threshold}, dryRun, bar)
			if errors.Is(err, errNoLinks) {
				return usageError(fmt.Errorf("--store %s: %w", a.cfg.Store, err))
			}
			if err != nil {
				return err
			}
			if a.cfg.JSON {
				return writeJSON(a.stdout, res)
			}
			printDetection(a.stdout, res, dryRun)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the links that would be recorded without recording them")
	cmd.Flags().Float64Var(&threshold, "threshold", family.DefaultThreshold, "minimum confidence of a link, in (0, 1]")
	return cmd
}

// familyReport is what family detection found, with the titles of the
// contracts it links.
type familyReport struct {
	family.Result
	Titles map[string]string `json:"titles"`
	// Linked counts the amending or supplementing documents linked to a
	// master in the store.
	Linked int `json:"linked"`
}

// runFamilies detects the families of every stored contract with a
// progress bar and, unless dryRun, records the links (replacing the
// detected ones). It returns errNoLinks for a store without links.
func (a *app) runFamilies(ctx context.Context, store graph.Store, opts family.Options, dryRun bool, bar *progressBar) (*familyReport, error) {
	ls, ok := store.(graph.LinkStore)
	if !ok {
		return nil, errNoLinks
	}
	// The bar's total; Stats would count every clause and party too (a
	// second at 100k).
	var total int64
	if r, err := store.SearchContracts(ctx, graph.ContractQuery{Limit: 1}); err == nil {
		total = int64(r.TotalCount)
	}
	bar.startUnit("families: reading contracts", "contracts")
	// Each record is parsed as it is read, so that no text is held after.
	det := family.NewDetector(opts)
	n := 0
	add := func(r family.Record) {
		det.Add(r)
		n++
		bar.update(int64(n), total, n)
	}
	var err error
	if hl, ok := store.(graph.ContractHeadLister); ok {
		// Only what detection reads: a few queries per page of contracts
		// instead of loading each contract whole.
		err = hl.ContractHeads(ctx, family.HeadBytes, func(h graph.ContractHead) error {
			add(headRecord(h))
			return nil
		})
	} else {
		err = store.Contracts(ctx, func(c *contract.Contract) error {
			add(familyRecord(c))
			return nil
		})
	}
	bar.clear()
	if err != nil {
		return nil, fmt.Errorf("families: %w", err)
	}
	res := det.Result()
	var linked []string
	for _, l := range res.Links {
		linked = append(linked, l.From, l.To)
	}
	rep := &familyReport{Result: res, Titles: det.Titles(linked)}
	rep.Linked = len(res.Links)
	if dryRun {
		return rep, nil
	}
	links := make([]graph.ContractLink, 0, len(res.Links))
	for _, l := range res.Links {
		links = append(links, graph.ContractLink{From: l.From, To: l.To, Kind: string(l.Kind), Restates: l.Restates,
			Confidence: l.Confidence, Quote: l.Evidence.Quote, Start: l.Evidence.Start, End: l.Evidence.End, Source: graph.LinkDetected})
	}
	if err := ls.ReplaceLinks(ctx, graph.LinkDetected, links); err != nil {
		return nil, fmt.Errorf("families: %w", err)
	}
	return rep, nil
}

// familyRecord is what the linker needs of a contract: the head of its
// text and its resolved parties.
func familyRecord(c *contract.Contract) family.Record {
	r := family.Record{ID: c.ID, Title: c.Title, ContractType: c.ContractType, EffectiveDate: c.EffectiveDate, Text: c.Text}
	if len(r.Text) > family.HeadBytes {
		r.Text = strings.Clone(r.Text[:family.HeadBytes]) // let the rest of the text go
	}
	for _, p := range c.Parties {
		r.Parties = append(r.Parties, family.Party{ID: p.PartyID, Name: p.Name})
	}
	return r
}

// headRecord is familyRecord of a contract's head.
func headRecord(h graph.ContractHead) family.Record {
	r := family.Record{ID: h.ID, Title: h.Title, ContractType: h.ContractType, EffectiveDate: h.EffectiveDate, Text: h.Text}
	for _, p := range h.Parties {
		r.Parties = append(r.Parties, family.Party{ID: p.ID, Name: p.Name})
	}
	return r
}

// printDetection prints what detection found.
func printDetection(w io.Writer, rep *familyReport, dryRun bool) {
	for _, l := range rep.Links {
		kind := string(l.Kind)
		if l.Restates {
			kind += " (restates)"
		}
		fmt.Fprintf(w, "%s\n  %s %s  (confidence %.2f: %s)\n  %q\n", label(l.From, rep.Titles[l.From]), kind, label(l.To, rep.Titles[l.To]), l.Confidence, l.Reason, clipQuote(l.Evidence.Quote))
	}
	for _, u := range rep.Unresolved {
		fmt.Fprintf(w, "%s\n  %s %q: %s\n", label(u.ContractID, u.Title), u.Reference.Document, u.Reference.Master, u.Reason)
	}
	verb := "recorded"
	if dryRun {
		verb = "would record"
	}
	fmt.Fprintf(w, "%d contracts refer to a master agreement: %s %s, %d unresolved (master not in the store or ambiguous)\n",
		rep.Documents, verb, plural(rep.Linked, "link"), len(rep.Unresolved))
}

func newFamiliesListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List contract families: each master with its amendments and supplements",
		Example: `  contractgraph families list
  contractgraph families list --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			store, err := a.openExistingStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			ls, ok := store.(graph.LinkStore)
			if !ok {
				return usageError(fmt.Errorf("--store %s: %w", a.cfg.Store, errNoLinks))
			}
			links, err := ls.ContractLinks(ctx, "")
			if err != nil {
				return err
			}
			fams, err := groupFamilies(ctx, store, links)
			if err != nil {
				return err
			}
			if a.cfg.JSON {
				return writeJSON(a.stdout, fams)
			}
			for _, f := range fams {
				fmt.Fprintln(a.stdout, label(f.Master.ID, f.Master.Title))
				for _, m := range f.Members {
					kind := m.Kind
					if m.Restates {
						kind += " (restates)"
					}
					fmt.Fprintf(a.stdout, "  <- %s %s  (%s, confidence %.2f)\n", kind, label(m.ID, m.Title), m.Source, m.Confidence)
				}
			}
			famWord := "families"
			if len(fams) == 1 {
				famWord = "family"
			}
			fmt.Fprintf(a.stdout, "%d %s, %s\n", len(fams), famWord, plural(len(links), "link"))
			return nil
		},
	}
}

// familyJSON is one family as `families list --json` prints it.
type familyJSON struct {
	Master  familyContract `json:"master"`
	Members []familyMember `json:"members"`
}

type familyContract struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

type familyMember struct {
	familyContract
	Kind       string  `json:"kind"`
	Restates   bool    `json:"restates,omitempty"`
	Confidence float64 `json:"confidence"`
	Source     string  `json:"source"`
	Quote      string  `json:"quote,omitempty"`
	Start      int     `json:"start"`
	End        int     `json:"end"`
}

// groupFamilies groups links by master (their To), in the order
// ContractLinks lists them, with the contracts' titles.
func groupFamilies(ctx context.Context, store graph.Store, links []graph.ContractLink) ([]familyJSON, error) {
	titles := map[string]string{}
	title := func(id string) (string, error) {
		if t, ok := titles[id]; ok {
			return t, nil
		}
		c, err := store.GetContract(ctx, id)
		if err != nil {
			return "", err
		}
		titles[id] = c.Title
		return c.Title, nil
	}
	out := []familyJSON{}
	at := map[string]int{}
	for _, l := range links {
		i, ok := at[l.To]
		if !ok {
			t, err := title(l.To)
			if err != nil {
				return nil, err
			}
			i = len(out)
			at[l.To] = i
			out = append(out, familyJSON{Master: familyContract{ID: l.To, Title: t}})
		}
		t, err := title(l.From)
		if err != nil {
			return nil, err
		}
		out[i].Members = append(out[i].Members, familyMember{familyContract: familyContract{ID: l.From, Title: t}, Kind: l.Kind,
			Restates: l.Restates, Confidence: l.Confidence, Source: l.Source, Quote: l.Quote, Start: l.Start, End: l.End})
	}
	return out, nil
}

func label(id, title string) string {
	if title == "" || title == id {
		return id
	}
	return title + " [" + id + "]"
}

func clipQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
