# SPDX-License-Identifier: Apache-2.0
# snowcar: the two commands a newcomer needs are `make demo` and `make test`.
# Both install the Debian packages first (scripts/install-deps, idempotent).

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
JOBS       ?= $(shell nproc)
# Tests mostly wait on timers (the embedded broker's 3 s group join, session timeouts,
# Retry-After, poll intervals) rather than compute: the whole suite used 220 s of CPU against
# about 1 940 s of test time, a tenth of a core per running test, most of it in the few tests
# that compute. So ctest runs six per processor; every integration test polls for its
# conditions with deadlines and must hold under that load (docs/performance.md, The test
# suite).
TEST_JOBS  ?= $(shell echo $$(( $$(nproc) * 6 )))
CMAKE_GEN  ?= -G Ninja
CTEST_ARGS ?=
PREFIX     ?= /usr/local
DESTDIR    ?=

.PHONY: all deps configure build test test-unit test-integration test-kafka-cluster test-asan test-tsan test-faults test-contract bench bench-build demo \
        docs-config docs-outcomes format tidy clean fuzz fuzz-build fuzz-quick install

all: build

deps:
	bash scripts/install-deps

# The product optimised as shipped (-O2), with line tables only (-g1): enough for stack traces
# and profiles, and a quarter less compiler time than full debug info, which the installed
# binary loses anyway (k8s/Dockerfile installs it stripped). For a debugger session, configure
# a directory of its own with CMAKE_BUILD_TYPE=Debug.
configure: deps
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Every test: unit, integration (real processes over real sockets), the one-broker `kafka`
# tests and the three-broker `kafka-cluster` ones (their cluster starts beside the rest), then
# the fuzz targets' short run. What ctest does not run is compiled beside it at the lowest CPU
# priority: the fuzz targets' clang build, then the benchmarks (not in `make build`), so a
# broken one still fails `make test`. The tests spend most of their time waiting on processes
# and sockets, and the compiler only takes the cycles they leave (docs/performance.md, The
# test suite). Its log is printed if it fails.
test: build
	@nice -n 19 sh -c '$(MAKE) --no-print-directory fuzz-build && $(MAKE) --no-print-directory bench-build' \
	  > $(BUILD)/fuzz-build.log 2>&1 & fuzz=$$!; \
	  (cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) $(CTEST_ARGS)); rc=$$?; \
	  if ! wait $$fuzz; then cat $(BUILD)/fuzz-build.log; echo "make test: the fuzz or benchmark build failed" >&2; exit 1; fi; \
	  exit $$rc
	$(MAKE) fuzz-quick

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -L unit $(CTEST_ARGS)

test-integration: build
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -L integration $(CTEST_ARGS)

# The tests on a three-broker Apache Kafka cluster alone (label kafka-cluster, docs/testbed.md);
# `make test` runs them with everything else.
test-kafka-cluster: build
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -L '^kafka-cluster$$' $(CTEST_ARGS)

# libFuzzer targets (docs/fuzzing.md): a clang build of their own, each target run over a copy
# of its seed corpus; crashes land in $(FUZZ_BUILD)/artifacts/. `fuzz-quick` runs in `make test`.
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 300

# -O1 with line tables: what libFuzzer's documentation builds with; full debug info and -O2
# only made this second build slower, not the fuzzing better.
fuzz-build: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
	  -DSNOWCAR_FUZZ=ON -DSNOWCAR_BUILD_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers

fuzz: fuzz-build
	bash scripts/run-fuzzers $(FUZZ_BUILD) $(FUZZ_SECONDS)

# A fixed seed: `make test` explores the same inputs on every run (as far as 10 s reach), so a
# failure there comes from a change and reproduces; `make fuzz` explores anew each time.
fuzz-quick: fuzz-build
	FUZZ_SEED=1 bash scripts/run-fuzzers $(FUZZ_BUILD) 10

# The fault suite's long run: hundreds of kill -9 rounds and every scripted fault
# (docs/reliability.md). The quick run is part of `make test`. FAULT_ARGS="--seed N" repeats
# the crash points of an earlier run (each run prints its seed).
FAULT_ARGS ?=
test-faults: build
	cmake --build $(BUILD) -j $(JOBS) --target fault_driver
	$(BUILD)/tests/fault/fault_driver --long $(FAULT_ARGS)

# The contract checker's random runs (docs/reliability.md, The contract checker): the kept
# regression seeds, then SEEDS runs, each a feature combination and a fault schedule named by
# its printed seed (SEED=S starts from S, to repeat a run). The fixed set is part of `make test`.
SEEDS ?= 20
test-contract: build
	cmake --build $(BUILD) -j $(JOBS) --target contract_driver
	$(BUILD)/tests/contract/contract_driver --regression --random $(SEEDS) $(if $(SEED),--seed $(SEED))

# ASan + UBSan build running the unit and integration tests: the integration tests start the
# sanitized sidecar, emulator and broker binaries, so a report in any of them fails its test.
# .ci/run passes ASAN_LABELS=unit to keep CI's run short (docs/reliability.md, Sanitizers).
ASAN_LABELS ?= unit|integration
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug \
	  -DSNOWCAR_SANITIZE=address,undefined -DSNOWCAR_BUILD_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -L '$(ASAN_LABELS)' $(CTEST_ARGS)

# ThreadSanitizer, unit tests only, without the ones labelled unit-librdkafka: librdkafka's
# threads (in the sidecar, the embedded broker and those test processes) crash inside TSan's
# runtime (docs/reliability.md, Sanitizers).
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug \
	  -DSNOWCAR_SANITIZE=thread -DSNOWCAR_BUILD_BENCH=OFF
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -L unit -LE librdkafka $(CTEST_ARGS)

# The benchmark programs are not part of `all`: `make test` builds them beside ctest. This
# target builds them in a configured build dir without configuring it again (ctest may be
# running there).
bench-build:
	cmake --build $(BUILD) -j $(JOBS) --target benches

bench: build
	$(MAKE) --no-print-directory bench-build
	bash scripts/run-benchmarks $(BUILD)

demo: build
	bash scripts/demo $(BUILD) $(DEMO_ARGS)

# Regenerates docs/configuration.md from the option table (a test checks it is current).
docs-config: build
	$(BUILD)/snowcar config docs > docs/configuration.md

# Regenerates docs/outcomes.md from the decision table (a test checks it is current).
docs-outcomes: build
	$(BUILD)/snowcar config outcomes > docs/outcomes.md

# Installs the binary, the guides and the example configuration under $(DESTDIR)$(PREFIX)
# (bin/, share/doc/snowcar/); DESTDIR stages the tree for distro packagers.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

# clang-tidy with the repo's .clang-tidy over every source, tests and benchmarks included; the
# fuzz targets only exist in the clang fuzz build, so they are checked when it is configured.
# It reads a copy of the compile commands without g++'s precompiled headers, which clang
# cannot load (scripts/compdb-without-pch).
tidy: configure
	python3 scripts/compdb-without-pch $(BUILD) $(BUILD)/tidy
	git ls-files 'src/*.cpp' 'state/*.cpp' 'tests/*.cpp' 'bench/*.cpp' | grep -v '^tests/fuzz/' \
	  | xargs -P $(JOBS) -n 8 clang-tidy -p $(BUILD)/tidy --quiet
	if [ -f $(FUZZ_BUILD)/compile_commands.json ]; then \
	  git ls-files 'tests/fuzz/*.cpp' | xargs clang-tidy -p $(FUZZ_BUILD) --quiet; fi

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
