# Thin wrappers around the go tool; CI runs .ci/run.
GO ?= go

.PHONY: build test bench bench-scale lint demo

build:
	@echo "building bin/contractgraph (the first build downloads and compiles the dependencies: a few minutes)"
	$(GO) build -buildvcs=auto -o bin/contractgraph ./cmd/contractgraph

# TESTFLAGS adds flags, e.g. make test TESTFLAGS='-count=1 -timeout 60m'.
test:
	$(GO) test -race $(TESTFLAGS) ./...

bench:
	$(GO) test -run '^$$' -bench . ./...

# The 1,000,000-contract store: built once with `contractgraph import`, cached
# under ~/.cache/contractgraph/bench, then every dev call and clause search.
bench-scale:
	CONTRACTGRAPH_SCALE=1 $(GO) test ./internal/graph/sqlite -run '^$$' -bench Scale1M -benchtime 20x -timeout 3h

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	$(GO) mod tidy -diff

demo: build
	bin/contractgraph demo
