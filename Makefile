# The build contract. Everything real lives in CMake; this file only names
# the everyday entry points and the order in which they run.
#
#   make run     install deps, build the server, serve on 0.0.0.0:8081 (embedded DB in ./var)
#   make test    install deps, build build/, build-asan/ and build-tsan/, ctest each, one summary line
#   make build   build/      (RelWithDebInfo)
#   make asan    build-asan/ (Debug, -DSR_SANITIZE=ON)
#   make fuzz    build tests/fuzz/*.c and tests/fuzz_client/*.c with libFuzzer (clang-14), run each for FUZZ_SECONDS
#   make bench   Release build; load runs (wrk, h2load, pgbench) as ratios to same-run baselines
#   make bench-decode  Release build; client/'s Avro decoder vs avro-c on the same records (not in make test)
#   make abuse   Release build; HTTP/2 and HTTP/1.1 attacks next to a well-behaved client (not in make test)
#   make tsan    build-tsan/ (-DSR_SANITIZE=thread), integration suite under ThreadSanitizer
#   make fresh-check  the README's commands on a debootstrap'd Debian 12 (root, 3-5 min)
#   make clean   remove the build directories
#
# RUN_ARGS is appended to `schema-registry serve` (e.g. make run RUN_ARGS='--listen 127.0.0.1:9000').

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.ONESHELL:
.DEFAULT_GOAL := build

JOBS         ?= 2
BUILD_DIR    := build
ASAN_DIR     := build-asan
FUZZ_DIR     := build-fuzz
TSAN_DIR     := build-tsan
BENCH_DIR    := build-release
BENCH_ARGS   ?=
ABUSE_ARGS   ?=
FUZZ_SECONDS ?= 20
FUZZ_CC      ?= clang-14
RUN_ARGS     ?=

.PHONY: deps build asan run test fuzz bench bench-decode abuse clean fresh-check tsan

deps:
	./scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD_DIR) -j$(JOBS)

asan: deps
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DSR_SANITIZE=ON
	cmake --build $(ASAN_DIR) -j$(JOBS)

# Builds only the server; through sudo it builds and serves as the invoking user.
run:
	exec env BUILD_DIR=$(BUILD_DIR) JOBS=$(JOBS) ./scripts/run.sh $(RUN_ARGS)

# Every build is tested even when an earlier one fails, so one run shows
# everything; a build that does not compile counts as one failure. The last
# line is the one CI and people read. Each spec is DIR|CMAKE FLAGS|TARGET|TESTS:
# the ThreadSanitizer build runs the integration suite only (its unit tests
# probe stack limits that TSan's larger frames do not keep), so it builds only
# what that suite runs: the server (and its man page) and the docs' example.
test: deps
	@set +e
	passed=0; failed=0
	for spec in "$(BUILD_DIR)|-DCMAKE_BUILD_TYPE=RelWithDebInfo|all|." \
	            "$(ASAN_DIR)|-DCMAKE_BUILD_TYPE=Debug -DSR_SANITIZE=ON|all|." \
	            "$(TSAN_DIR)|-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSR_TSAN=ON|schema-registry decoder-example avroc-interop|^integration/"; do
	  IFS='|' read -r dir flags target tests <<<"$$spec"
	  if ! { cmake -S . -B "$$dir" $$flags && cmake --build "$$dir" -j$(JOBS) --target $$target; }; then
	    echo "make test: build of $$dir FAILED" >&2
	    failed=$$((failed + 1)); continue
	  fi
	  ctest --test-dir "$$dir" -R "$$tests" --output-on-failure -j$(JOBS) 2>&1 | tee "$$dir/ctest.log"
	  rc=$${PIPESTATUS[0]}
	  summary=$$(grep -Eo '[0-9]+ tests? failed out of [0-9]+' "$$dir/ctest.log" | tail -n 1)
	  if [[ -n "$$summary" ]]; then
	    f=$$(awk '{print $$1}' <<<"$$summary"); n=$$(awk '{print $$NF}' <<<"$$summary")
	    passed=$$((passed + n - f)); failed=$$((failed + f))
	    # ctest failing without a failed test (a crash, a bad config) still fails.
	    if (( rc != 0 && f == 0 )); then failed=$$((failed + 1)); fi
	  elif (( rc != 0 )); then
	    failed=$$((failed + 1))
	  fi
	done
	echo "make test: $$passed passed, $$failed failed"
	(( failed == 0 ))

# libFuzzer: compat (and the three engine libraries it links) is built by CMake
# with coverage instrumentation
# (fuzzer-no-link); each target is linked here because the fuzz flags must not
# reach the normal builds.
fuzz: deps
	@shopt -s nullglob
	targets=(tests/fuzz/*.c tests/fuzz_client/*.c)
	if (( $${#targets[@]} == 0 )); then echo "make fuzz: no tests/fuzz/*.c targets"; exit 0; fi
	CC=$(FUZZ_CC) cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=Debug \
	  "-DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -O1"
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target compat base client
	includes=$$(find $(FUZZ_DIR) -name '*.h' -printf '-I%h\n' | sort -u)
	libs=$$(pkg-config --libs jansson libprotobuf-c libcrypto)
	# tests/fuzz_client/ targets also link client/ (and so libcurl) before compat.
	clientlibs=($(FUZZ_DIR)/libclient.a); curl=$$(pkg-config --libs libcurl)
	mkdir -p $(FUZZ_DIR)/artifacts
	rm -rf $(FUZZ_DIR)/seeds
	python3 tests/fuzz/seed_corpus.py $(FUZZ_DIR)/seeds
	bad=0
	for src in "$${targets[@]}"; do
	  name=$$(basename "$$src" .c)
	  extra=(); [[ $$src == tests/fuzz_client/* ]] && extra=("$${clientlibs[@]}")
	  $(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer \
	    -I. $$includes "$$src" "$${extra[@]}" $(FUZZ_DIR)/libcompat.a $(FUZZ_DIR)/libcompat_avro.a \
	    $(FUZZ_DIR)/libcompat_protobuf.a $(FUZZ_DIR)/libcompat_jsonschema.a $(FUZZ_DIR)/libbase.a \
	    $$libs $$([[ $$src == tests/fuzz_client/* ]] && echo "$$curl -lpthread") -lm -o "$(FUZZ_DIR)/$$name"
	  corpus=$(FUZZ_DIR)/corpus/$$name; mkdir -p "$$corpus"
	  seeds=(); [[ -d $(FUZZ_DIR)/seeds/$$name ]] && seeds=($(FUZZ_DIR)/seeds/$$name)
	  [[ -d tests/fuzz/corpus/$$name ]] && seeds+=(tests/fuzz/corpus/$$name)
	  # Long enough for the hostile shapes: a descriptor 10,000 messages deep is ~90 KB of base64.
	  max_len=16384; [[ $$name == fuzz_proto ]] && max_len=131072
	  echo "make fuzz: $$name for $(FUZZ_SECONDS) s (-max_len=$$max_len)"
	  if ! "$(FUZZ_DIR)/$$name" -max_total_time=$(FUZZ_SECONDS) -max_len=$$max_len \
	       -artifact_prefix=$(FUZZ_DIR)/artifacts/$$name- "$$corpus" "$${seeds[@]}"; then
	    echo "make fuzz: $$name FAILED (see $(FUZZ_DIR)/artifacts/)" >&2; bad=1
	  fi
	done
	(( bad == 0 ))

fresh-check:
	./scripts/fresh-check.sh

# The integration suite against a ThreadSanitizer build: a race report makes
# the server exit non-zero at its stop, which fails the test that stopped it.
tsan: deps
	cmake -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSR_TSAN=ON
	cmake --build $(TSAN_DIR) -j$(JOBS) --target schema-registry
	ctest --test-dir $(TSAN_DIR) -R '^integration/' --output-on-failure -j$(JOBS)

# Release build of the server and the constant-handler baseline, then the
# table of docs/performance.md. BENCH_ARGS: e.g. '--seconds 5 --quick'.
bench:
	./scripts/install-deps.sh build run test bench
	cmake -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BENCH_DIR) -j$(JOBS) --target schema-registry bench-constant bench-decode
	/usr/bin/python3 bench/bench.py --binary $(BENCH_DIR)/schema-registry \
	  --constant $(BENCH_DIR)/bench-constant --decode $(BENCH_DIR)/bench-decode $(BENCH_ARGS)

# Release build of bench/decode.c: client/'s Avro decoder against Debian's
# avro-c on the same records in the same run (docs/performance.md "Decoding"), alone;
# make bench prints the same two rows in its table. BENCH_DECODE_N: records (default 200000).
bench-decode:
	./scripts/install-deps.sh build test
	cmake -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BENCH_DIR) -j$(JOBS) --target bench-decode
	$(BENCH_DIR)/bench-decode $(BENCH_DECODE_N)

# Release build of the server, then bench/abuse.py: rapid reset, HPACK bomb, CONTINUATION,
# SETTINGS and PING floods, slowloris, each with mitigations off and on, as ratios to the
# same client without the attack (docs/security.md). ABUSE_ARGS: e.g. '--seconds 2 --only reset'.
abuse:
	./scripts/install-deps.sh build run test
	cmake -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BENCH_DIR) -j$(JOBS) --target schema-registry
	/usr/bin/python3 bench/abuse.py --binary $(BENCH_DIR)/schema-registry $(ABUSE_ARGS)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) $(TSAN_DIR) $(BENCH_DIR) tests/integration/.tmp*
