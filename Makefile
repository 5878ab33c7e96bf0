# engram — the two commands the README gives:
#   make demo   installs what is missing, builds a release binary, indexes the sample vault, searches it
#   make test   installs what is missing, builds, runs every test (release build, then ASan+UBSan build)
BUILD_DIR ?= build/release
DEV_DIR ?= build/dev
JOBS ?= 2
ENGRAM := $(BUILD_DIR)/apps/engram/engram
DEMO_DIR := .demo

.PHONY: all deps build build-dev demo test test-release test-sanitize bench clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake --preset release >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

build-dev: deps
	@cmake --preset dev >/dev/null
	@cmake --build $(DEV_DIR) -j $(JOBS)

demo: build
	@scripts/demo $(ENGRAM) $(DEMO_DIR)

test: test-release test-sanitize

test-release: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer and UndefinedBehaviorSanitizer, plus
# the fuzz targets; the ranking-quality gates run in the release build only.
test-sanitize: build-dev
	@ctest --test-dir $(DEV_DIR) --output-on-failure -j $(JOBS)

bench: build
	@bench/run-keyword-bench $(BUILD_DIR)

clean:
	rm -rf build $(DEMO_DIR)
