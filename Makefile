# Tongban Terminal — the two commands a newcomer needs: `make run`, `make test`.
SWIFT      ?= swift
# man-db, zsh and fish: Tests/e2e/install_e2e.sh renders the installed man
# pages and parses the installed completions. xvfb, xterm, xdotool and
# x11-apps (xwd): Tests/e2e/xterm_sixel_e2e.sh reads a real terminal's pictures.
APT_PKGS   ?= libncursesw5-dev libsqlite3-dev libvips-dev sqlite3 tmux curl nginx openssl postgresql python3 ed \
              man-db zsh fish xvfb xterm xdotool x11-apps
BENCH_PKGS ?= ngircd
# Shared build folder for the debug products.
BIN        := .build/debug

.PHONY: all deps buildinfo build test test-once test-repeat queue-fault golden fuzz fuzz-replay run bench bench-deps bench-repeat bench-compare order-check release order \
	install install-gen install-files uninstall clean

all: build

# Installs the Debian packages that are missing (CI runs as root on a clean clone).
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y $$missing; \
	fi

# The commit `--version` names: Sources/CBuildInfo/commit.h (gitignored),
# "-dirty" when tracked files differ from HEAD, "unknown" outside git. It is
# rewritten only when its line changes, so an unchanged tree recompiles
# nothing; buildinfo.c is touched then, because SwiftPM does not see a
# header that appeared after the file's first compile.
COMMIT_H := Sources/CBuildInfo/commit.h
buildinfo:
	@commit=$$(git rev-parse --short HEAD 2>/dev/null) || commit=""; \
	if [ -z "$$commit" ]; then commit=unknown; \
	elif [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit=$$commit-dirty; fi; \
	line="#define TONGBAN_COMMIT \"$$commit\""; \
	if [ "$$(cat $(COMMIT_H) 2>/dev/null)" != "$$line" ]; then \
		echo "$$line" > $(COMMIT_H).tmp && mv $(COMMIT_H).tmp $(COMMIT_H) && \
		touch Sources/CBuildInfo/buildinfo.c && echo "buildinfo: commit $$commit"; \
	fi

build: deps buildinfo
	$(SWIFT) build

test: deps buildinfo
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory test-once
	$(MAKE) --no-print-directory fuzz-replay

# Every test against what is built: the Swift suites (the server's a second
# time on a throwaway PostgreSQL cluster), then the end-to-end scripts
# against the real binaries.
test-once:
	$(SWIFT) test --skip-build
	SWIFT=$(SWIFT) bash Tests/pg/server_suite.sh
	BIN=$(BIN) bash Tests/e2e/tmux_e2e.sh
	BIN=$(BIN) bash Tests/e2e/group_e2e.sh
	BIN=$(BIN) bash Tests/e2e/tls_e2e.sh
	BIN=$(BIN) bash Tests/e2e/cluster_e2e.sh
	BIN=$(BIN) bash Tests/e2e/newcomer_e2e.sh
	BIN=$(BIN) bash Tests/e2e/outbox_e2e.sh
	BIN=$(BIN) bash Tests/e2e/actions_e2e.sh
	BIN=$(BIN) bash Tests/e2e/people_e2e.sh
	BIN=$(BIN) bash Tests/e2e/rooms_e2e.sh
	BIN=$(BIN) bash Tests/e2e/rooms_tui_e2e.sh
	BIN=$(BIN) bash Tests/e2e/alive_e2e.sh
	BIN=$(BIN) bash Tests/e2e/secret_e2e.sh
	SECRET_E2E_PG=1 BIN=$(BIN) bash Tests/e2e/secret_e2e.sh
	TONGBAN_EXPECT_COMMIT=1 BIN=$(BIN) bash Tests/e2e/install_e2e.sh
	BIN=$(BIN) bash Tests/e2e/xterm_sixel_e2e.sh
	BIN=$(BIN) bash Tests/e2e/export_e2e.sh
	python3 Tests/e2e/abuse_e2e.py --bin $(BIN)
	BIN=$(BIN) bash Tests/bench/help_check.sh
	python3 Tests/e2e/command_names.py
	BIN=$(BIN) bash Tests/fault/fault_e2e.sh
	python3 Tests/fault/queue_fault.py --bin $(BIN) --runs $(FAULT_RUNS) --regressions Tests/fault/queue_regressions.txt

# The send queue's randomized fault test alone: `make queue-fault FAULT_RUNS=200
# FAULT_FIRST=1000` runs seeds 1000..1199 (make test runs seeds 1..FAULT_RUNS).
FAULT_RUNS  ?= 24
FAULT_FIRST ?= 1
queue-fault: buildinfo
	$(SWIFT) build
	python3 Tests/fault/queue_fault.py --bin $(BIN) --runs $(FAULT_RUNS) --first $(FAULT_FIRST)

# The whole suite N times over one build; any failure fails the run (a test
# that passes only by luck shows up here).
N ?= 5
test-repeat: deps buildinfo
	$(SWIFT) build --build-tests
	@for i in $$(seq 1 $(N)); do \
		echo "== test-repeat: run $$i of $(N) =="; \
		$(MAKE) --no-print-directory test-once || { echo "test-repeat: run $$i of $(N) FAILED"; exit 1; }; \
	done; echo "test-repeat: all $(N) runs passed"

# Rewrites the golden frames (Tests/TongbanTUITests/Golden/) from the
# current drawing code; review the change with `git diff` before committing.
golden: deps
	TONGBAN_UPDATE_GOLDEN=1 $(SWIFT) test --filter GoldenFrameTests
	@git status --short Tests/TongbanTUITests/Golden

# libFuzzer harnesses (Fuzz/) of what comes from outside: wire decoders,
# custom payloads, JSONSyntax, the terminal sanitiser and safe file names,
# KeyDecoder, the media magic-number check. `make test` replays their
# corpora (fuzz-replay), so the harnesses build with the code they check.
FUZZ_SECONDS ?= 600
fuzz: deps
	bash Fuzz/run.sh all $(FUZZ_SECONDS)

# Every committed seed and every input a fuzzer once crashed on, run once.
fuzz-replay: deps
	bash Fuzz/run.sh replay

run: deps buildinfo
	$(SWIFT) build --product tongban
	$(BIN)/tongban start --demo

# Release binaries with the Swift runtime and Foundation linked in: they run on
# a machine without Swift, start faster and map less (measured in BENCHMARKS.md).
# Linked by lld (part of the Swift toolchain) with packed relative relocations
# (RELR, glibc 2.36+): 141,000 relocations take 28 KB instead of 3.4 MB that
# every start read into memory. Without ld.lld, the default linker is used.
#
# Code layout of the client (lld only; see Tools/order.sh): every function in
# its own section (Swift, C and C++), so that --gc-sections drops unused ones
# and lld can place the functions a running client uses first
# (Tools/tongban.order: the idle client's functions first, then the rest,
# each hottest first; written by `make order`), with Swift's
# symbol-less helpers gathered next to them (Tools/tongban-text.ld). No
# exported dynamic symbols: the static stdlib link asks for -export-dynamic,
# which put 4 MB of symbol tables nobody looks up into the binary.
#
# libstdc++ (which the Swift runtime and ICU need) is linked in as well: the
# toolchain asks for -lstdc++, and a one-line linker script named
# libstdc++.so in a folder searched first turns that into libstdc++.a. The
# shared library cost an idle client 1.0 MiB of resident memory (its symbol
# tables and relocations) and its loading slowed every start (BENCHMARKS.md).
# Without gcc's libstdc++.a the shared library is used.
RELEASE_FLAGS := --static-swift-stdlib
STATIC_CXX    := $(shell gcc -print-file-name=libstdc++.a 2>/dev/null)
STATIC_CXX_DIR := $(CURDIR)/.build/static-libstdc++
ifneq ($(wildcard $(STATIC_CXX)),)
RELEASE_FLAGS += -Xswiftc -L -Xswiftc $(STATIC_CXX_DIR)
endif
CLIENT_LINK_FLAGS :=
ifneq ($(shell command -v ld.lld 2>/dev/null),)
RELEASE_FLAGS += -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections \
	-Xlinker --no-export-dynamic
CLIENT_LINK_FLAGS += -Xlinker --symbol-ordering-file=$(CURDIR)/Tools/tongban.order -Xlinker --no-warn-symbol-ordering \
	-Xlinker -T -Xlinker $(CURDIR)/Tools/tongban-text.ld
endif

# The client is linked last with its layout flags; SwiftPM does not see a
# change in the two Tools files, so the client binary is removed first and
# always relinked (a few seconds).
release: deps buildinfo
	@if [ -f "$(STATIC_CXX)" ]; then mkdir -p $(STATIC_CXX_DIR) && echo "INPUT($(STATIC_CXX))" > $(STATIC_CXX_DIR)/libstdc++.so; fi
	for p in tongban-server tongban-bench; do $(SWIFT) build -c release $(RELEASE_FLAGS) --product $$p || exit 1; done
	rm -f .build/release/tongban
	$(SWIFT) build -c release $(RELEASE_FLAGS) $(CLIENT_LINK_FLAGS) --product tongban

# `make install` (PREFIX, DESTDIR as usual): the release binaries, their man
# pages and shell completions (written from the binaries' own help, so they
# say what --help says), the systemd unit and the nginx example.
# install-files installs whatever is in INSTALL_FROM without building:
# Tests/e2e/install_e2e.sh installs the debug binaries into a temporary DESTDIR.
PREFIX       ?= /usr/local
DESTDIR      ?=
INSTALL_FROM ?= .build/release
INSTALL_GEN  ?= .build/install-gen
# What is installed, one SOURCE:PATH:MODE a line (PATH under $(DESTDIR)$(PREFIX));
# uninstall removes exactly these PATHs.
INSTALL_LIST := \
	$(INSTALL_FROM)/tongban:bin/tongban:0755 \
	$(INSTALL_FROM)/tongban-server:bin/tongban-server:0755 \
	$(INSTALL_GEN)/tongban.1:share/man/man1/tongban.1:0644 \
	$(INSTALL_GEN)/tongban-server.8:share/man/man8/tongban-server.8:0644 \
	$(INSTALL_GEN)/tongban.bash:share/bash-completion/completions/tongban:0644 \
	$(INSTALL_GEN)/tongban-server.bash:share/bash-completion/completions/tongban-server:0644 \
	$(INSTALL_GEN)/_tongban:share/zsh/site-functions/_tongban:0644 \
	$(INSTALL_GEN)/_tongban-server:share/zsh/site-functions/_tongban-server:0644 \
	$(INSTALL_GEN)/tongban.fish:share/fish/vendor_completions.d/tongban.fish:0644 \
	$(INSTALL_GEN)/tongban-server.fish:share/fish/vendor_completions.d/tongban-server.fish:0644 \
	$(INSTALL_GEN)/tongban-server.service:lib/systemd/system/tongban-server.service:0644 \
	deploy/nginx/tongban.conf:share/doc/tongban/nginx/tongban.conf:0644 \
	Resources/Localization/en.json:share/tongban/Localization/en.json:0644 \
	Resources/Localization/zh-Hans.json:share/tongban/Localization/zh-Hans.json:0644
INSTALLED := $(foreach f,$(INSTALL_LIST),$(word 2,$(subst :, ,$(f))))
UNIT_PATH  := $(PREFIX)/lib/systemd/system/tongban-server.service
NGINX_PATH := $(PREFIX)/share/doc/tongban/nginx/tongban.conf

install: buildinfo release
	$(MAKE) --no-print-directory install-files

# Man pages and completions from the binaries being installed; the unit's
# ExecStart names the binary where PREFIX puts it.
install-gen:
	@for b in tongban tongban-server; do [ -x $(INSTALL_FROM)/$$b ] || \
		{ echo "no $(INSTALL_FROM)/$$b: make install builds it (make release)"; exit 1; }; done
	rm -rf $(INSTALL_GEN) && mkdir -p $(INSTALL_GEN)
	python3 Tools/manpage.py --section 1 --see-also tongban-server:8 \
		$(INSTALL_FROM)/tongban > $(INSTALL_GEN)/tongban.1
	python3 Tools/manpage.py --section 8 --see-also tongban:1 --see-also nginx:8 --see-also systemctl:1 \
		--file "$(UNIT_PATH)=The systemd unit: the server on 127.0.0.1:8080, its data in /var/lib/tongban; systemctl enable --now tongban-server." \
		--file "$(NGINX_PATH)=The nginx example: TLS in front of the server, HTTP and the push WebSocket passed on; fill in its four placeholders and include it in nginx's http block." \
		$(INSTALL_FROM)/tongban-server > $(INSTALL_GEN)/tongban-server.8
	for b in tongban tongban-server; do \
		$(INSTALL_FROM)/$$b --generate-completion-script bash > $(INSTALL_GEN)/$$b.bash && \
		$(INSTALL_FROM)/$$b --generate-completion-script zsh > $(INSTALL_GEN)/_$$b && \
		$(INSTALL_FROM)/$$b --generate-completion-script fish > $(INSTALL_GEN)/$$b.fish || exit 1; \
	done
	sed 's|/usr/local/bin/tongban-server|$(PREFIX)/bin/tongban-server|g' \
		deploy/systemd/tongban-server.service > $(INSTALL_GEN)/tongban-server.service

install-files: install-gen
	@for f in $(INSTALL_LIST); do \
		set -- $$(echo "$$f" | tr : " "); \
		install -D -m $$3 "$$1" "$(DESTDIR)$(PREFIX)/$$2" || exit 1; \
		echo "installed $(DESTDIR)$(PREFIX)/$$2"; \
	done

# Removes the installed files, then the directories left empty: every one up
# to DESTDIR in a staging tree, only tongban's own (share/doc/tongban and
# share/tongban, the words the client shows) on the
# system itself, where bin/, man1/ and the like are shared.
uninstall:
	@for f in $(INSTALLED); do \
		if [ -e "$(DESTDIR)$(PREFIX)/$$f" ]; then rm -f "$(DESTDIR)$(PREFIX)/$$f" && echo "removed $(DESTDIR)$(PREFIX)/$$f" || exit 1; fi; \
	done
	@top=$$(echo "$(DESTDIR)" | sed 's|/*$$||'); \
	if [ -n "$$top" ]; then \
		for f in $(INSTALLED); do \
			d=$$(dirname "$(DESTDIR)$(PREFIX)/$$f"); \
			while [ "$$d" != "$$top" ] && [ "$$d" != / ] && [ "$$d" != . ] && rmdir "$$d" 2>/dev/null; do d=$$(dirname "$$d"); done; \
		done; \
	else \
		rmdir "$(PREFIX)/share/doc/tongban/nginx" "$(PREFIX)/share/doc/tongban" \
			"$(PREFIX)/share/tongban/Localization" "$(PREFIX)/share/tongban" 2>/dev/null || true; \
	fi

# Says when the client's code changed since Tools/tongban.order was written:
# functions the profile does not name land outside the ordered region, and
# the idle client's resident code grows with every one it runs (28 → 23 MiB
# idle RSS when it was regenerated after issues 47-50, BENCHMARKS.md).
CLIENT_SOURCES := Sources/tongban Sources/TongbanTUI Sources/TerminalUI Sources/ChatCore Sources/ChatStore \
	Sources/ChatSync Sources/ChatViewModels Sources/ChatMedia Sources/ChatCrypto
order-check:
	@last=$$(git log -1 --format=%H -- Tools/tongban.order 2>/dev/null); \
	n=$$( [ -n "$$last" ] && git rev-list --count $$last..HEAD -- $(CLIENT_SOURCES) 2>/dev/null || echo 0); \
	if [ "$$n" -gt 0 ]; then echo "note: Tools/tongban.order predates $$n commits to the client's code; the idle client's memory grows as it goes stale: make order"; fi

# Rewrites Tools/tongban.order from a profile of the release client (valgrind).
order: release
	@dpkg -s valgrind >/dev/null 2>&1 || { SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y valgrind; }
	BIN=.build/release bash Tools/order.sh

bench-deps:
	@missing=""; for p in $(BENCH_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y $$missing; \
	fi

bench: release bench-deps order-check
	@# The PostgreSQL section runs on a throwaway cluster, removed afterwards.
	@dir=$$(mktemp -u /tmp/tongban-pg.XXXXXX); url=$$(bash Tests/pg/cluster.sh start $$dir) || exit 1; \
	TONGBAN_BENCH_PG=$$url .build/release/tongban-bench all; rc=$$?; bash Tests/pg/cluster.sh stop $$dir; exit $$rc
	BIN=.build/release bash Tests/bench/clients.sh

# One sub-bench RUNS times, each figure's values side by side and how many
# runs met its goal: `make bench-repeat SUB=server` (SUB: a tongban-bench
# subcommand, or clients).
SUB  ?= server
RUNS ?= 5
bench-repeat: release bench-deps order-check
	BIN=.build/release bash Tests/bench/repeat.sh $(SUB) $(RUNS)

# Before/after in one run: BASE (a commit) is built with its own
# `make release` in a worktree under /tmp, then Tests/bench/compare.sh runs
# the store, server and client figures of both and prints after/before.
BASE ?= HEAD~1
bench-compare: release bench-deps
	@dir=/tmp/tongban-base-$$(git rev-parse --short $(BASE)); \
	[ -d $$dir ] || git worktree add --detach $$dir $(BASE); \
	$(MAKE) -C $$dir release && bash Tests/bench/compare.sh $$dir/.build/release .build/release

clean:
	$(SWIFT) package clean
