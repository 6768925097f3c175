# Thin wrapper around CMake. `make run` and `make test` work on a fresh machine.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
BUILD_VALGRIND ?= build-valgrind
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
SCENARIO   ?= scenarios/quickstart.yaml

.PHONY: all deps configure build gpusim run test test-asan test-valgrind fuzz bench fgd-sweep clean

all: build

deps:
	@tools/install-deps

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: $(BUILD)/CMakeCache.txt

# Everything: the binary, the tests and the benchmarks.
build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# The binary alone (what `make run` needs).
gpusim: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target gpusim

run: gpusim
	$(BUILD)/gpusim run $(SCENARIO) -o $(BUILD)/quickstart.db

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DGPUSIM_SANITIZE=ON
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# The unit tests and a few scenarios under valgrind (memcheck), in a Debug build without
# sanitizers; any memcheck error or definite leak fails (tools/valgrind-tests).
test-valgrind: deps
	@tools/install-deps valgrind
	cmake -S . -B $(BUILD_VALGRIND) -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(BUILD_VALGRIND) -j $(JOBS)
	JOBS=$(JOBS) tools/valgrind-tests $(BUILD_VALGRIND) $(VALGRIND_SCENARIOS)

# The libFuzzer targets of tests/fuzz, built with clang in $(BUILD_FUZZ), each run for
# FUZZ_SECONDS on its checked-in corpus (tests/fuzz/README.md). FUZZ_TARGETS="cel quantity"
# picks some; FUZZ_FLAGS passes libFuzzer flags.
fuzz: deps
	@tools/install-deps fuzz
	cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSIM_FUZZ=ON
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz-targets
	tests/fuzz/run $(BUILD_FUZZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# BASELINE=<build dir of another checkout> compares with it, side by side.
bench: build
	@tools/bench/run $(BUILD) $(BASELINE)

fgd-sweep: build
	$(BUILD)/gpusim experiment fgd --workload default --policies all --seeds 42-51 --tune 1.3 --jobs $(JOBS) --csv $(BUILD)/fgd-default.csv

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ) $(BUILD_VALGRIND)
