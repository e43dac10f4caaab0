# Thin wrapper over meson. The two set-up commands of the README:
#   make run    build, start acceld on ./var/acceld.sock and show it serving
#   make test   build and run the whole test suite
BUILD ?= build
MESON_OPTS ?=

.PHONY: all deps build run test test-asan fuzz clean

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

test: build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

# Second pass under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-asan
	meson test -C build-asan --print-errorlogs --num-processes 2

clean:
	rm -rf $(BUILD) build-asan build-fuzz var
