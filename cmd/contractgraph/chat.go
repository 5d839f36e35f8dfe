package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// maxChatLine bounds one line of chat input.
const maxChatLine = 64 << 10

func newChatCmd(a *app) *cobra.Command {
	var opts askOptions
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Talk with the contract agent over several turns",
		Long: "An interactive conversation with the agent: each line you type is a question, answered with the\n" +
			"earlier turns as context. /reset forgets the conversation, /quit (or end of input) leaves.\n" +
			"Reads standard input, so questions can also be piped in, one per line.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			ag, closeFn, err := a.newAgent(ctx, opts)
			if err != nil {
				return err
			}
			defer closeFn()
			return a.chat(ctx, ag)
		},
	}
	opts.register(cmd)
	return cmd
}

// chat is the read–answer loop. A failed turn is reported and the
// conversation goes on; only an interrupt or the end of input stops it.
func (a *app) chat(ctx context.Context, ag *agent.Agent) error {
	in := bufio.NewScanner(a.stdin)
	in.Buffer(make([]byte, 0, 4096), maxChatLine)
	var history []llm.Message
	failed := false
	if !a.cfg.JSON {
		fmt.Fprintln(a.stdout, "Ask about your contracts. /reset starts over, /quit leaves.")
	}
	for {
		if !a.cfg.JSON {
			fmt.Fprint(a.stdout, "> ")
		}
		if !in.Scan() {
			if !a.cfg.JSON {
				fmt.Fprintln(a.stdout)
			}
			if err := in.Err(); err != nil {
				return fmt.Errorf("read input: %w", err)
			}
			break
		}
		line := strings.TrimSpace(in.Text())
		switch line {
		case "":
			continue
		case "/quit", "/exit", "/q":
			return exitStatus(failed)
		case "/reset":
			history = nil
			if !a.cfg.JSON {
				fmt.Fprintln(a.stdout, "(conversation cleared)")
			}
			continue
		}
		ans, err := a.runTurn(ctx, ag, history, line)
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				return err
			}
			failed = true
			fmt.Fprintf(a.stderr, "contractgraph: %v\n", err)
			continue
		}
		history = append(history,
			llm.Message{Role: llm.RoleUser, Content: line},
			llm.Message{Role: llm.RoleAssistant, Content: withSources(ans)})
	}
	return exitStatus(failed)
}

// exitStatus is 1 when any turn failed, after the failures were reported.
func exitStatus(failed bool) error {
	if failed {
		return silentExit(1)
	}
	return nil
}

// withSources is the answer as the model should remember it: its text and
// the contract ids it cited, so follow-up questions can refer to them.
func withSources(ans *agent.Answer) string {
	var ids []string
	for _, c := range ans.Citations {
		if c.ClauseType == "" {
			ids = append(ids, c.ContractID)
		}
	}
	if len(ids) == 0 {
		return ans.Text + "\nSources: none"
	}
	return ans.Text + "\nSources: " + strings.Join(ids, ", ")
}
