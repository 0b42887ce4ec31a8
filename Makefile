# Boris: build, run and test. `make run` and `make test` are the two set-up
# commands the README promises work on a fresh machine.

GO        ?= go
BIN       ?= bin
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/mjkoo/boris/internal/version.Version=$(VERSION)
GOFLAGS_BUILD := -trimpath -ldflags '$(LDFLAGS)'
# staticcheck, pinned, built by go run from the module proxy (no install step)
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build run test test-k8s vet lint bench-board bench-startup bench-scale soak-checkpoints bench bench-grep bench-gateway bench-isolation bench-checkpoint bench-edit-miss bench-extension bench-fstools bench-diagnostics bench-stateless bench-nodes release-check clean

all: build

## build: static binaries in ./bin, both in one go build (what they share is compiled once,
## in parallel), saying every 20 s that it still works: the first build downloads the modules
## ("go: downloading") and compiles every package, SQLite's (a large translation) the longest
build:
	@echo "building $(BIN)/boris and $(BIN)/boris-gateway (the first time: module downloads, then minutes of compiling)"
	@mkdir -p $(BIN)
	@CGO_ENABLED=0 ./scripts/heartbeat.sh "go build" $(GO) build $(GOFLAGS_BUILD) -o $(BIN)/ ./cmd/boris ./cmd/boris-gateway

## run: build, print the stdio client configuration, then start the gateway
## on 127.0.0.1:$(PORT) with a generated token (printed with client configs).
## RUN_WORKDIR is the directory served, RUN_FLAGS more gateway flags
## (e.g. RUN_FLAGS='--auth none' for clients that cannot send a token).
RUN_WORKDIR ?= $(CURDIR)
PORT      ?= 8080
RUN_FLAGS ?=
# RUN_WORKDIR made absolute for client configs; not with abspath, which
# would split a path holding spaces.
run_dir = $(if $(filter /%,$(firstword $(RUN_WORKDIR))),$(RUN_WORKDIR),$(CURDIR)/$(RUN_WORKDIR))
run: build
	@./scripts/print-config.sh "$(abspath $(BIN))/boris" "$(run_dir)" "$(PORT)" "$(RUN_FLAGS)"
	exec $(BIN)/boris-gateway --listen 127.0.0.1:$(PORT) $(RUN_FLAGS) -- --workdir "$(run_dir)"

## test: vet, staticcheck and every test, unit and end-to-end. It first says what it installs when
## missing (Go modules; test/interop's npm packages, into ~/.cache/boris-test, never the
## checkout; nginx, caddy, chromium, ripgrep and postgresql with apt-get), then runs each phase with a line
## at least every 25 s (test/progress), a line per test as it ends, a failure with its first
## lines and the file in $(TEST_LOGS) holding all its output, and a summary at the end.
TEST_LOGS ?= $(BIN)/test-logs
## ./test's tests wait on processes more than they compute: split across TEST_SHARDS processes
## (balanced by the durations the last run kept in TEST_CACHE), they end in a third of the time
TEST_SHARDS ?= 3
## durations of a run on a 2-core machine, kept in the repository for a first run (a fresh
## cache): tests and packages the cache does not know take theirs; refresh them from
## $(TEST_CACHE)/test-times and package-times after tests are added or change much
TEST_SEED ?= test/progress/seed
## the shards' processes run this much nicer than the other packages' go test, which ends last: both end nearer together
TEST_SHARD_NICE ?= 3
TEST_CACHE  ?= $(or $(BORIS_TEST_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/boris-test)
PROGRESS  := $(BIN)/test-progress
## the binaries the tests run, built once (internal/testbin.Build finds them up to date there)
TEST_BIN  := $(BIN)/test-bin
TEST_BIN_ENV := BORIS_TEST_BIN_DIR=$(abspath $(TEST_BIN))
## every go command of make test but go test -race builds as the binaries the tests run are built
## (static, -trimpath): what one compiles, go vet, staticcheck's export data and the tests' own tools
## find in the build cache instead of compiling all of it again (on a cold cache, minutes of CPU each)
AS_BUILT  := CGO_ENABLED=0 GOFLAGS='$(strip $(shell $(GO) env GOFLAGS) -trimpath)'
# the Kubernetes manifests' tests: a Go module of its own (Kustomize and the API types stay out of go.mod)
K8S_TEST  := deploy/kubernetes/test
test: SHELL := /bin/bash
test: .SHELLFLAGS := -o pipefail -ec
test:
	@./scripts/test-needs.sh
	@echo "building test/progress (what prints make test's progress)"
	@$(AS_BUILT) $(GO) build -o $(PROGRESS) ./test/progress
	@rm -rf $(TEST_LOGS)
	@$(PROGRESS) -phase "go mod download" -- sh -c '$(GO) mod download && cd $(K8S_TEST) && $(GO) mod download'
	@$(PROGRESS) -phase "build the binaries the tests run" -- env $(AS_BUILT) $(GO) build -ldflags="-s -w" -o $(TEST_BIN)/ ./cmd/boris ./cmd/boris-gateway
	@echo "go test -race: every package (compiled first, then run); the end-to-end tests of ./test in $(TEST_SHARDS) processes beside them; go vet and staticcheck beside those"
	@$(TEST_BIN_ENV) $(PROGRESS) -logs $(TEST_LOGS) -shard ./test -shards $(TEST_SHARDS) -shard-bin $(BIN)/e2e.test -shard-times "$(TEST_CACHE)/test-times" -package-times "$(TEST_CACHE)/package-times" -shard-times-seed $(TEST_SEED)/test-times -package-times-seed $(TEST_SEED)/package-times -shard-nice $(TEST_SHARD_NICE) \
		-beside "export $(AS_BUILT); "'$(GO) vet ./... && (cd $(K8S_TEST) && $(GO) vet ./...) && $(STATICCHECK) ./... && (cd $(K8S_TEST) && $(STATICCHECK) ./...)' -- \
		$(GO) test -json -race -ldflags='-s -w' -count=1 -timeout 20m -coverprofile=$(BIN)/cover.out $$($(GO) list ./... | grep -vx 'github.com/mjkoo/boris/test')
	@$(AS_BUILT) $(GO) run ./test/toolcover $(BIN)/cover.out
	@echo "the Kubernetes manifests' tests ($(K8S_TEST), a module of its own)"
	@cd $(K8S_TEST) && $(AS_BUILT) $(GO) test -json -count=1 -timeout 5m ./... 2>&1 | $(CURDIR)/$(PROGRESS) -logs $(CURDIR)/$(TEST_LOGS)

## test-k8s: deploy/kubernetes against a real control plane: kube-apiserver and etcd built from their Go
##   modules (K8S_VERSION, v1.37.2) into ~/.cache/boris-test/k8s (about 10 minutes the first time, under
##   nice -n 19; BORIS_K8S_CACHE moves it), started on loopback ports with generated certificates, accept
##   every rendered manifest by server-side dry-run apply with strict field validation; not part of test
test-k8s:
	@bin=$$(./$(K8S_TEST)/build-controlplane.sh) && \
	  cd $(K8S_TEST) && BORIS_K8S_BIN=$$bin $(GO) test -count=1 -v -timeout 10m -run '^TestAPIServer' ./...

## lint: staticcheck (pinned), which make test runs too
lint:
	$(STATICCHECK) ./...

## soak-checkpoints: the model-based checkpoint test (random agent calls, outside changes and
##   undos checked against a model) for many more steps and seeds than make test runs;
##   SOAK_SEEDS and SOAK_STEPS change them
SOAK_SEEDS ?= 1 2 3 4 5 6 7 8
SOAK_STEPS ?= 1500
soak-checkpoints:
	@for seed in $(SOAK_SEEDS); do \
		echo "seed $$seed, $(SOAK_STEPS) steps"; \
		BORIS_MODEL_SEED=$$seed BORIS_MODEL_STEPS=$(SOAK_STEPS) $(GO) test -count=1 -timeout 60m -run '^TestCheckpointModel$$' ./test || exit 1; \
	done

## bench: startup and call latency against @modelcontextprotocol/server-filesystem
bench:
	$(GO) run ./test/bench

## bench-startup: spawn -> initialized and spawn -> first tools/list of boris against bare go-sdk servers (one tool, and as many as boris lists)
bench-startup:
	$(GO) run ./test/bench/startup $(BENCH_STARTUP_FLAGS)

## bench-scale: one gateway, isolation on, 500 open sessions of 50 principals, 50 calling view, grep and
##   bash for 60 s while sessions are created beside them: latencies, errors, memory, descriptors; then
##   the same for supergateway (npm, installed as test/interop's packages are; skipped, saying why,
##   without node and npm) serving the same boris (BENCH_SCALE_FLAGS, e.g. -sessions 100 -duration 20s,
##   -peer=false for boris-gateway alone). About five minutes with both.
bench-scale:
	$(GO) run ./test/bench/scale $(BENCH_SCALE_FLAGS)

## bench-grep: grep and glob against ripgrep over the Go source tree;
## BENCH_GREP_FLAGS='-corpus all' adds the Linux sources (warm and cold-ish page cache)
BENCH_GREP_FLAGS ?=
bench-grep:
	$(GO) run ./test/bench/grep $(BENCH_GREP_FLAGS)

## bench-gateway: boris-gateway against supergateway (npm), and direct stdio
bench-gateway:
	$(GO) run ./test/bench/gateway

## bench-stateless: a small call through the gateway, 2026-07-28 (stateless) client vs 2025-11-25 session client
bench-stateless:
	$(GO) run ./test/bench/stateless

## bench-nodes: small-call throughput with 1, 2 and 3 gateway nodes behind nginx (installs nginx), and nginx's added latency
bench-nodes:
	$(GO) run ./test/bench/nodes

## bench-board: task board operations per second, SQLite against PostgreSQL (installs Debian's postgresql
##   when missing and starts it in a temporary directory), one host and two hosts writing at once
bench-board:
	$(GO) run ./test/bench/board $(BENCH_BOARD_FLAGS)

## bench-isolation: bash call and session create with the sandbox and cgroups on vs off, and with
##   --sandbox-net none and proxy vs host; a 100 MB download through the egress proxy vs direct
bench-isolation:
	$(GO) run ./test/bench/isolation

## bench-checkpoint: str_replace and bash latency with checkpoints on vs off, 10,000-file and small trees
##   (BENCH_CHECKPOINT_FLAGS=-linux adds the Linux sources, installed and extracted the first time);
##   cold rows: the first str_replace and bash after initialize, fresh state, on about 10k, 40k, 80k
##   files (copies of Go's src; -cold-sizes, -cold-runs), the starting checkpoint's wall and CPU time and size;
##   then one recording through the git binary vs go-git (a module of its own: go-git is never Boris's)
BENCH_CHECKPOINT_FLAGS ?=
bench-checkpoint:
	$(GO) run ./test/bench/checkpoint $(BENCH_CHECKPOINT_FLAGS)
	cd test/bench/checkpoint/machinery && $(GO) run .

## bench-edit-miss: str_replace on a 10,000-line file, a successful edit against misses of each kind (wall and CPU per call)
bench-edit-miss:
	$(GO) test -run '^$$' -bench BenchmarkStrReplace10k -count 5 ./core/tools/boris/

## bench-diagnostics: what diagnostics after edits cost: str_replace latency with a language server
##   (first edit, warm p50/p99) against --diagnostics off, on a go-sdk module copy and a TypeScript
##   project; the server's memory and idle CPU (needs the servers make test installs)
bench-diagnostics:
	$(GO) run ./test/bench/diagnostics

## bench-fstools: boris --toolset filesystem against server-filesystem: start-up, read_text_file,
##   directory_tree and search_files on a 10,000-file tree, edit_file dryRun
bench-fstools:
	$(GO) run ./test/bench/fstools

## bench-extension: a hello-world extension tool vs the same project under mcp-bash-framework
##   (MCPBASH_HOME=<a checkout of it>; without one, Boris alone) and vs built-in tools
bench-extension:
	$(GO) run ./test/bench/extension

## release-check: goreleaser check, a snapshot release in ./dist, and checks of its
## archives (static binaries, stamped --version); slow, so not part of test
release-check:
	./scripts/release-check.sh

clean:
	rm -rf $(BIN)
