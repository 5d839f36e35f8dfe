# Thin wrappers around the go tool; CI runs .ci/run.
GO ?= go

.PHONY: build test bench lint demo

build:
	@echo "building bin/contractgraph (the first build downloads and compiles the dependencies: a few minutes)"
	$(GO) build -buildvcs=auto -o bin/contractgraph ./cmd/contractgraph

# TESTFLAGS adds flags, e.g. make test TESTFLAGS='-count=1 -timeout 60m'.
test:
	$(GO) test -race $(TESTFLAGS) ./...

bench:
	$(GO) test -run '^$$' -bench . ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	$(GO) mod tidy -diff

demo: build
	bin/contractgraph demo
