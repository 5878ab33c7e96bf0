# engram — the two commands the README gives:
#   make demo   installs what is missing, builds a release binary, indexes the sample vault, searches it
#   make test   installs what is missing, builds, runs every test through CTest
BUILD_DIR ?= build/release
JOBS ?= 2
ENGRAM := $(BUILD_DIR)/apps/engram/engram
DEMO_DIR := .demo

.PHONY: all deps build demo test bench clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake --preset release >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	@scripts/demo $(ENGRAM) $(DEMO_DIR)

test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

bench: build
	@bench/run-keyword-bench $(BUILD_DIR)

clean:
	rm -rf build $(DEMO_DIR)
