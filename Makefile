# Tongban Terminal — the two commands a newcomer needs: `make run`, `make test`.
SWIFT      ?= swift
APT_PKGS   ?= libncursesw5-dev libsqlite3-dev libvips-dev sqlite3 tmux curl
BENCH_PKGS ?= ngircd
# Shared build folder for the debug products.
BIN        := .build/debug

.PHONY: all deps build test run bench release clean

all: build

# Installs the Debian packages that are missing (CI runs as root on a clean clone).
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y $$missing; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	BIN=$(BIN) bash Tests/e2e/tmux_e2e.sh

run: deps
	$(SWIFT) build --product tongban
	$(BIN)/tongban start --demo

# Release binaries with the Swift runtime and Foundation linked in: they run on
# a machine without Swift, start faster and map less (measured in BENCHMARKS.md).
# Linked by lld (part of the Swift toolchain) with packed relative relocations
# (RELR, glibc 2.36+): 141,000 relocations take 28 KB instead of 3.4 MB that
# every start read into memory. Without ld.lld, the default linker is used.
RELEASE_FLAGS := --static-swift-stdlib
ifneq ($(shell command -v ld.lld 2>/dev/null),)
RELEASE_FLAGS += -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
endif

release: deps
	for p in tongban tongban-server tongban-bench; do $(SWIFT) build -c release $(RELEASE_FLAGS) --product $$p || exit 1; done

bench: release
	@missing=""; for p in $(BENCH_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y $$missing; \
	fi
	.build/release/tongban-bench all
	BIN=.build/release bash Tests/bench/clients.sh

clean:
	$(SWIFT) package clean
