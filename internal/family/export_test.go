package family

// Exported for the tests of package family_test.
var (
	MayRefer         = mayRefer
	ReferenceMatches = referenceMatches
	ClipUTF8         = clipUTF8
)

const (
	MaxTitleBytes = maxTitleBytes
)
