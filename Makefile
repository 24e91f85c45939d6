# Thin wrapper around CMake. Quick start: `make demo`, `make test`.
BUILD   ?= build
CUDA    ?= AUTO
ARCH    ?= 90
TYPE    ?= Release
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build configure demo test test-fast test-sanitize test-aarch64 fuzz install clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(TYPE) -DGPUPRIM_CUDA=$(CUDA) \
	  -DCMAKE_CUDA_ARCHITECTURES="$(ARCH)" -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Build, then reduce 2^26 random values on every available backend.
demo: build
	./$(BUILD)/gpuprim demo

# Build, then run every test through ctest (the large cases included).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Every test but those labelled large (past 2^31 elements).
test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE large

# The CPU build with AddressSanitizer and UndefinedBehaviorSanitizer (its
# own folder), then every test but the large ones: the host code's memory
# errors and undefined behaviour, which the plain tests may not see.
# The emulators (label emu) are left out: they switch stacks with
# swapcontext, which AddressSanitizer does not follow.
test-sanitize:
	$(MAKE) build BUILD=build-sanitize CUDA=OFF TYPE=RelWithDebInfo CMAKE_FLAGS="-DGPUPRIM_SANITIZE=ON"
	cd build-sanitize && ctest --output-on-failure -j $(JOBS) -LE 'large|emu'

# The CPU build for 64-bit Arm Linux (a Grace host), its tests run under
# qemu-user (scripts/cross-check.sh says which, and what to install).
test-aarch64:
	scripts/cross-check.sh build-aarch64

# libFuzzer on the tool's input readers and command lines, and on the library's calls
# (tests/fuzz), FUZZ_SECONDS each,
# with clang; what it finds lands in build-fuzz/findings (rerun one with
# build-fuzz/tests/fuzz/fuzz_replay --target T FILE).
FUZZ_SECONDS ?= 60
fuzz:
	CC=clang CXX=clang++ $(MAKE) configure BUILD=build-fuzz CUDA=OFF TYPE=RelWithDebInfo \
	  CMAKE_FLAGS="-DGPUPRIM_FUZZ=ON -DGPUPRIM_SANITIZE=ON"
	cmake --build build-fuzz -j $(JOBS) --target fuzz_replay fuzz_npy fuzz_text fuzz_flags fuzz_png fuzz_args \
	  fuzz_api
	mkdir -p build-fuzz/findings
	for t in npy text flags png args api; do \
	  mkdir -p build-fuzz/corpus/$$t && \
	  build-fuzz/tests/fuzz/fuzz_replay --target $$t --write-seeds build-fuzz/corpus/$$t && \
	  build-fuzz/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=2 \
	    -max_len=16384 -artifact_prefix=build-fuzz/findings/$$t- build-fuzz/corpus/$$t || exit 1; \
	done

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
