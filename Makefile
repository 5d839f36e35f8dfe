# Thin wrappers around the go tool; CI runs .ci/run.
GO ?= go

.PHONY: build test bench lint demo

build:
	$(GO) build -o bin/contractgraph ./cmd/contractgraph

test:
	$(GO) test -race ./...

bench:
	$(GO) test -run '^$$' -bench . ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

demo:
	$(GO) run ./cmd/contractgraph demo
