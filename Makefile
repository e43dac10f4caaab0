# Thin wrapper over meson. The two set-up commands of the README:
#   make run    build, start acceld on ./var/acceld.sock and show it serving
#   make test   build and run the whole test suite (fetching native TensorFlow
#               Lite for the differential tests when npm reaches its registry)
BUILD ?= build
MESON_OPTS ?=

.PHONY: all deps build run test test-asan test-tsan fuzz deb clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja:
	@./scripts/install-deps.sh
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	./scripts/run-demo.sh $(BUILD)

# The differential tests (tests/difftest) compare with native TensorFlow
# Lite 2.9: fetched once from the npm registry into bench/out/ when npm
# reaches it (a later run reuses the download); without it they SKIP and the
# rest of the suite runs as usual.
test: build
	@if lib=$$(timeout 300 bench/fetch-native-tflite.sh 2>/dev/null); then \
		echo "make test: native TensorFlow Lite for the differential tests: $$lib"; \
	else \
		echo "make test: native TensorFlow Lite not fetched (npm or its registry unreachable): the differential tests will SKIP"; \
	fi
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

# Second pass under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-asan
	meson test -C build-asan --print-errorlogs --num-processes 2

# The threads that share state (the libuv loop, scheduler workers, the
# storage thread, the XNNPACK driver's pools and their rester) under
# ThreadSanitizer. Every process of a test, the
# acceld children included, writes its reports to build-tsan/tsan/; any
# report fails the target. tests/tsan.supp lists known exceptions, each with
# its reason. Not in the set: minibench and acceld-wcache (their benchmark
# workers run under RLIMIT_AS, where TSan cannot map its shadow memory and
# aborts) and acceld-isolation (its hang/deadline timings do not hold at
# TSan's speed). The multiplier gives the slowed tests their time.
# Only what those tests run is built (the kernels' own tests are not).
TSAN_TESTS ?= drivers-xnnpack-pool runtime-threadpool daemon-scheduler storage-thread storage-events acceld-serving acceld-zerocopy acceld-cache acceld-requests acceld-lane acceld-lane-hosts
TSAN_TARGETS ?= daemon/acceld client/accelctl plugins/faulty/faulty.so tests/daemon/acceld-test \
	tests/daemon/test-daemon-scheduler tests/storage/test-storage-thread tests/storage/test-storage-events \
	tests/daemon/test-acceld-serving tests/daemon/test-acceld-zerocopy tests/daemon/test-acceld-cache \
	tests/daemon/test-acceld-requests tests/runtime/drivers/test-xnnpack-pool tests/daemon/test-acceld-lane \
	tests/daemon/test-acceld-lane-hosts tests/runtime/threadpool/test-threadpool
test-tsan: deps
	[ -f build-tsan/build.ninja ] || meson setup build-tsan -Db_sanitize=thread -Db_lundef=false
	ninja -C build-tsan $(TSAN_TARGETS)
	rm -rf build-tsan/tsan && mkdir -p build-tsan/tsan
	TSAN_OPTIONS="log_path=$(CURDIR)/build-tsan/tsan/report suppressions=$(CURDIR)/tests/tsan.supp second_deadlock_stack=1" \
		meson test -C build-tsan --no-rebuild --print-errorlogs --num-processes 2 --timeout-multiplier 3 $(TSAN_TESTS)
	@if ls build-tsan/tsan/report.* >/dev/null 2>&1; then \
		cat build-tsan/tsan/report.*; echo "ThreadSanitizer: reports in build-tsan/tsan/"; exit 1; fi

# Debian binary packages (debian/) into build-deb/: dpkg-buildpackage runs
# on a copy of the tree, so debhelper's files and the package build tree
# stay out of it, and the .debs land beside the copy. scripts/build-deb.sh
# says what it needs; DEB_JOBS sets the parallelism (2 by default).
deb: deps
	./scripts/build-deb.sh build-deb

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz build-deb var
