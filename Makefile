# Thin wrapper around CMake. Quick start: `make demo`, `make test`.
BUILD   ?= build
CUDA    ?= AUTO
ARCH    ?= 90
TYPE    ?= Release
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build configure demo test test-fast install clean

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

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
