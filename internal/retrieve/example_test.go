package retrieve_test

import (
	"fmt"

	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// Chunks start at clause headings; each chunk's offsets select its text.
func ExampleChunk() {
	text := "ARTICLE I\nDEFINITIONS\n\"Products\" means widgets.\n" +
		"Section 2. Term. Two years from the Effective Date.\n\n" +
		"3. Governing Law. Delaware."
	for _, c := range retrieve.Chunk(text, retrieve.ChunkOptions{Max: 60, Min: 10}) {
		fmt.Printf("%d [%d,%d) %q\n", c.Ord, c.Start, c.End, c.Text)
	}
	// Output:
	// 0 [0,47) "ARTICLE I\nDEFINITIONS\n\"Products\" means widgets."
	// 1 [48,99) "Section 2. Term. Two years from the Effective Date."
	// 2 [101,128) "3. Governing Law. Delaware."
}
