# jitterlab — build, test, run. `sudo make run` and `sudo make check` install what they need first.
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= gcc
BUILD   ?= build
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

PKGS    := libtracefs libtraceevent libtracecmd numa inih json-c gsl zlib
WARN    := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wformat=2 \
           -Wno-format-nonliteral -Wno-format-truncation -Wundef -Wpointer-arith -Wvla
ifeq ($(WERROR),1)
WARN    += -Werror
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS  ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(CFLAGS) $(WARN) -D_GNU_SOURCE -DJL_VERSION='"$(VERSION)"' -I. $(PKG_CFLAGS) \
              -MMD -MP $(EXTRA_CFLAGS)
LDLIBS  := $(PKG_LIBS) -lpthread -lm $(EXTRA_LDLIBS)

LIB_SRC := $(sort $(filter-out rt/main.c,$(wildcard rt/*.c affinity/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# small programs the integration tests run as exec neighbours (shapes the harness has no work kind for)
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/tests/helpers/%)

.PHONY: all check run deps install uninstall asan fuzz bench clean unit integration list-tests

all: $(BUILD)/jitterlab $(UNIT_BIN) $(HELPER_BIN)

# quiet by default; `make V=1` shows the commands
ifneq ($(V),1)
Q := @
endif

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libjitterlab.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/jitterlab: $(BUILD)/obj/rt/main.o $(BUILD)/libjitterlab.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libjitterlab.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/libjitterlab.a $(LDLIBS) \
		$(shell pkg-config --libs cmocka)

$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HELPER  $@")
	$(Q)$(CC) -std=gnu11 $(CFLAGS) $(WARN) -D_GNU_SOURCE -o $@ $< -lpthread

deps:
	@scripts/install-deps.sh

# The README's test command: install deps, build, run every test (unit + integration as root).
check: deps
	@$(MAKE) --no-print-directory all
	@JITTERLAB=$(abspath $(BUILD)/jitterlab) UNIT_DIR=$(abspath $(BUILD)/tests) tests/run.sh

unit: all
	@JITTERLAB=$(abspath $(BUILD)/jitterlab) UNIT_DIR=$(abspath $(BUILD)/tests) tests/run.sh --unit

integration: all
	@JITTERLAB=$(abspath $(BUILD)/jitterlab) UNIT_DIR=$(abspath $(BUILD)/tests) tests/run.sh --integration

# The main job on the built-in quick-start scenario.
run: deps
	@$(MAKE) --no-print-directory $(BUILD)/jitterlab
	@$(BUILD)/jitterlab run scenarios/quickstart.ini $(ARGS) || { rc=$$?; \
		[ $$rc -ne 3 ] || echo "make run: an [expect] of the quickstart did not hold on this machine (see FAIL above)"; \
		exit $$rc; }

asan:
	@$(MAKE) --no-print-directory BUILD=build/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		EXTRA_LDLIBS="-fsanitize=address,undefined" all
	@ASAN_OPTIONS=detect_leaks=1 JITTERLAB=$(abspath build/asan/jitterlab) UNIT_DIR=$(abspath build/asan/tests) tests/run.sh

FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
fuzz:
	@mkdir -p build/fuzz
	clang -std=gnu11 $(FUZZ_CFLAGS) -D_GNU_SOURCE -I. $(PKG_CFLAGS) -o build/fuzz/fuzz_scenario \
		tests/fuzz/fuzz_scenario.c $(wildcard rt/scenario*.c) rt/units.c rt/work.c rt/metrics.c rt/stop.c affinity/cpulist.c affinity/topology.c \
		$(PKG_LIBS) -lm
	@mkdir -p build/fuzz/corpus
	@cp scenarios/*.ini tests/fuzz/seeds/* build/fuzz/corpus/ 2>/dev/null || true
	build/fuzz/fuzz_scenario -max_total_time=$${FUZZ_SECONDS:-60} -timeout=5 -rss_limit_mb=2048 -artifact_prefix=build/fuzz/ \
		-dict=tests/fuzz/scenario.dict build/fuzz/corpus

# Benchmarks print figures and ratios; they never pass or fail on timings.
bench: all
	@for b in tests/bench/*.sh; do [ -x "$$b" ] || continue; echo "== $$b"; \
		JITTERLAB=$(abspath $(BUILD)/jitterlab) timeout 900 "$$b" || echo "bench $$b: exit $$?"; done

install: $(BUILD)/jitterlab
	install -D -m 0755 $(BUILD)/jitterlab $(DESTDIR)$(PREFIX)/bin/jitterlab
	install -d $(DESTDIR)$(PREFIX)/share/jitterlab/scenarios
	install -m 0644 scenarios/*.ini $(DESTDIR)$(PREFIX)/share/jitterlab/scenarios/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/jitterlab
	rm -rf $(DESTDIR)$(PREFIX)/share/jitterlab

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(BUILD)/obj/rt/main.d
