# Boris: build, run and test. `make run` and `make test` are the two set-up
# commands the README promises work on a fresh machine.

GO        ?= go
BIN       ?= bin
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/mjkoo/boris/core.Version=$(VERSION)
GOFLAGS_BUILD := -trimpath -ldflags '$(LDFLAGS)'

.PHONY: all build run test vet bench clean

all: build

## build: static binaries in ./bin
build:
	CGO_ENABLED=0 $(GO) build $(GOFLAGS_BUILD) -o $(BIN)/boris ./cmd/boris

## run: build, then print the client configuration for this checkout
run: build
	@./scripts/print-config.sh "$(abspath $(BIN))/boris"

## test: vet and every test, unit and end-to-end (installs Go modules itself)
test:
	$(GO) mod download
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m ./...

## bench: startup and call latency against @modelcontextprotocol/server-filesystem
bench:
	$(GO) run ./test/bench

clean:
	rm -rf $(BIN)
