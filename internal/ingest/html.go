package ingest

import (
	"context"
	"fmt"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
)

// htmlToText converts HTML to Markdown, keeping tables as Markdown tables.
// Markdown escaping is disabled so that quotes taken from the text by a
// model match it verbatim ("1. Term" stays "1. Term", not "1\. Term").
func htmlToText(ctx context.Context, html string) (string, error) {
	conv := converter.NewConverter(
		converter.WithEscapeMode(converter.EscapeModeDisabled),
		converter.WithPlugins(
			base.NewBasePlugin(),
			commonmark.NewCommonmarkPlugin(),
			table.NewTablePlugin(table.WithSkipEmptyRows(true)),
		),
	)
	md, err := conv.ConvertString(html, converter.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("%w: html: %v", ErrCorrupt, err)
	}
	return md, nil
}
