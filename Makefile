# weft — plain Makefile. make | make test | make check | make bench | make run | make fuzz
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
WARN    = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wdouble-promotion -Wformat=2 -Wvla -Wcast-qual -Wundef -Werror
# clang's -Wextra also flags a designated initializer that leaves fields out
# (the option tables: {"--flag", "ARG", "help"} with .twice zero), which C
# defines as zero and gcc accepts: off for clang, so `make CC=clang` builds.
ifneq (,$(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)))
WARN   += -Wno-missing-field-initializers
endif
CFLAGS  ?= $(OPT) -g
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(SAN) $(WARN) -Iinclude -Isrc -Ibench \
             -I$(BUILD)/gen -MMD -MP
LDLIBS  = -lyaml -lprotobuf-c -lm -lpthread
# Quiet by default: one line when the build is done; V=1 shows every command.
V ?= 0
ifeq ($(V),1)
Q :=
else
Q := @
endif
LDFLAGS += $(SAN)

LIB_SRC   = $(sort $(wildcard src/*/*.c))
CLI_SRC   = $(sort $(wildcard cli/*.c))
TEST_SRC  = $(sort $(wildcard tests/unit/*.c))
BENCH_SRC = $(sort $(wildcard bench/*.c))
BENCH_COMMON = $(sort $(wildcard bench/common/*.c))

# Chakra traces (src/io/chakra*.c): protoc-c turns weft's own schema
# src/io/chakra.proto into $(BUILD)/gen/chakra.pb-c.{c,h} (Debian's
# protobuf-c-compiler; the library links libprotobuf-c).
GEN       = $(BUILD)/gen
LIB_OBJ   = $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN)/chakra.pb-c.o
CLI_OBJ   = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ  = $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCHES   = $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
BENCH_OBJ = $(BENCH_COMMON:%.c=$(BUILD)/%.o)

LIB   = $(BUILD)/libweft.a
WEFT  = $(BUILD)/weft
UNIT  = $(BUILD)/test_unit

# The shared library: the same sources as position-independent objects (the
# static library and the CLI keep their non-PIC speed), soname libweft.so.MAJOR,
# exporting weft_* only (scripts/weft.map).
VERSION  := $(shell sed -n 's/^\#define WEFT_VERSION "\(.*\)"/\1/p' include/weft.h)
SOMAJOR  := $(firstword $(subst ., ,$(VERSION)))
SONAME    = libweft.so.$(SOMAJOR)
SO        = $(BUILD)/libweft.so.$(VERSION)
PIC_OBJ   = $(LIB_SRC:%.c=$(BUILD)/pic/%.o) $(GEN)/pic/chakra.pb-c.o
PREFIX   ?= /usr/local
# Where make install puts the data (zoo, parts, cost, ...) and where the
# library looks for it (src/core/datadir.c): built in, so datadir.o is
# rebuilt whenever it changes ($(BUILD)/datadir.txt records the last one).
DATADIR  ?= $(PREFIX)/share/weft
DATA_ENTRIES = $(notdir $(wildcard data/*))  # what install copies there, uninstall removes

.PHONY: all deps run test check bench valgrind clean mpi fuzz fuzz-ci fuzz-build fuzzers \
        install uninstall man FORCE
MAKEFLAGS += --no-print-directory
all: $(LIB) $(SO) $(WEFT)
	@echo "weft $(VERSION): built $(WEFT), $(LIB) and $(SO)$(if $(filter 1,$(V)),, (make V=1 shows the commands))"

# Install what a fresh Debian machine lacks (needs root or sudo).
deps:
	@./scripts/deps.sh

run: deps
	$(MAKE) all
	$(WEFT) optimize data/gpt3_4096npu_4d.yml

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/datadir.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@
$(BUILD)/src/core/datadir.o $(BUILD)/pic/src/core/datadir.o: $(BUILD)/datadir.txt
$(BUILD)/src/core/datadir.o $(BUILD)/pic/src/core/datadir.o: ALL_CFLAGS += -DWEFT_DATADIR='"$(DATADIR)"'
$(GEN)/chakra.pb-c.c $(GEN)/chakra.pb-c.h &: src/io/chakra.proto
	@mkdir -p $(GEN)
	$(Q)protoc-c --proto_path=src/io --c_out=$(GEN) chakra.proto
# Generated code: its initialisers cast away const (protobuf_c_empty_string).
$(GEN)/chakra.pb-c.o: $(GEN)/chakra.pb-c.c
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-cast-qual -c $< -o $@
$(GEN)/pic/chakra.pb-c.o: $(GEN)/chakra.pb-c.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-cast-qual -fPIC -c $< -o $@
$(filter-out $(GEN)/%,$(LIB_OBJ) $(PIC_OBJ)): | $(GEN)/chakra.pb-c.h

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(Q)ar rcs $@ $^

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(SO): $(PIC_OBJ) scripts/weft.map
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=scripts/weft.map \
	  -o $@ $(PIC_OBJ) $(LDLIBS)
	$(Q)ln -sf libweft.so.$(VERSION) $(BUILD)/$(SONAME)
	$(Q)ln -sf $(SONAME) $(BUILD)/libweft.so

# Man pages from the help text (scripts/man.sh): weft(1), weft-CMD(1).
man: $(WEFT)
	@./scripts/man.sh $(WEFT) $(BUILD)/man

# make install PREFIX=... (DESTDIR for staging): the CLI, the header, both
# libraries, weft.pc for pkg-config, the man pages and the data (data/: the
# zoo, parts, cost models, ...) in $(DATADIR), where the installed binary and
# library look for it; make uninstall removes them. (The header: weft.h and
# the areas it includes, include/weft/*.h.)
install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/weft \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(WEFT) $(DESTDIR)$(PREFIX)/bin/weft
	install -m 644 include/weft.h $(DESTDIR)$(PREFIX)/include/weft.h
	install -m 644 include/weft/*.h $(DESTDIR)$(PREFIX)/include/weft/
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libweft.a
	install -m 755 $(SO) $(DESTDIR)$(PREFIX)/lib/libweft.so.$(VERSION)
	$(Q)ln -sf libweft.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	$(Q)ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libweft.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scripts/weft.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/weft.pc
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(DATADIR)
	$(Q)for e in $(DATA_ENTRIES); do rm -rf "$(DESTDIR)$(DATADIR)/$$e"; done
	cp -R data/. $(DESTDIR)$(DATADIR)/
	chmod -R a+rX,go-w $(DESTDIR)$(DATADIR)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/weft/*.h
	-rmdir $(DESTDIR)$(PREFIX)/include/weft
	rm -f $(DESTDIR)$(PREFIX)/bin/weft $(DESTDIR)$(PREFIX)/include/weft.h \
	  $(DESTDIR)$(PREFIX)/lib/libweft.a $(DESTDIR)$(PREFIX)/lib/libweft.so \
	  $(DESTDIR)$(PREFIX)/lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/libweft.so.$(VERSION) \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/weft.pc $(DESTDIR)$(PREFIX)/share/man/man1/weft.1 \
	  $(DESTDIR)$(PREFIX)/share/man/man1/weft-*.1
	$(Q)for e in $(DATA_ENTRIES); do rm -rf "$(DESTDIR)$(DATADIR)/$$e"; done
	-rmdir $(DESTDIR)$(DATADIR)

$(WEFT): $(CLI_OBJ) $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

# The unit tests also check the CLI's JSON string writer (cli/json.c); the
# random-problem generator (bench/common/randprob.c) serves the unit suite
# 'random' and bench_random alike.
RANDPROB = $(BUILD)/bench/common/randprob.o
$(UNIT): $(TEST_OBJ) $(BUILD)/cli/json.o $(RANDPROB) $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) $(BUILD)/cli/json.o $(RANDPROB) $(LIB) $(LDLIBS)

# Each bench/*.c is one program, linked with bench/common/*.c (kept, not
# deleted as an intermediate).
.SECONDARY: $(BENCH_OBJ)
$(BUILD)/bench/%: bench/%.c $(BENCH_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BENCH_OBJ) $(LIB) $(LDLIBS)

# The tests, then the examples built against an installed copy (a staging
# prefix under $(BUILD)) through pkg-config: the public API from outside (not
# in the sanitizer build: a plain program cannot load a sanitized library).
test: deps
	$(MAKE) $(UNIT) $(WEFT) $(SO)
	@WEFT_EXAMPLES=$(if $(SAN),0,1) WEFT_PYTHON=$(if $(SAN),0,1) ./tests/run.sh $(BUILD)

# weft built with MPI (Debian's Open MPI, installed when missing): the same
# sources with -DWEFT_MPI into $(BUILD)/mpi/weft, for codesign and sweep
# across ranks (mpirun -np K $(BUILD)/mpi/weft codesign ...).
MPICC ?= mpicc
mpi:
	@./scripts/deps.sh --mpi
	$(MAKE) BUILD=$(BUILD)/mpi CC=$(MPICC) CFLAGS="$(CFLAGS) -DWEFT_MPI" all

# The same tests under address and undefined-behaviour sanitizers.
check:
	$(MAKE) BUILD=build/san OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

valgrind: $(UNIT) $(WEFT)
	valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=all $(UNIT)
	WEFT_WRAP="valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=all" ./tests/run_golden.sh $(BUILD)

# libFuzzer harnesses (tests/fuzz/, docs/fuzz.md): the library and each
# tests/fuzz/fuzz_NAME.c built with clang under ASan/UBSan into
# build/fuzz/fuzz_NAME (objects in build/fuzz/, apart from the normal
# build), then each run for FUZZ_SECONDS on its corpus; any crash, leak,
# sanitizer report or failed check fails the target. fuzz-ci: 6 s each.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CI_SECONDS ?= 6
FUZZ_SAN = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
           -fno-omit-frame-pointer
FUZZ_SRC  = $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_OBJ  = $(FUZZ_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/fuzz/fuzz.o
FUZZERS   = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)

fuzz: fuzz-build
	@./tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_CI_SECONDS)

fuzz-build:
	$(MAKE) BUILD=build/fuzz CC=$(FUZZ_CC) OPT=-O1 SAN="$(FUZZ_SAN)" fuzzers

fuzzers: $(FUZZERS)
.SECONDARY: $(FUZZ_OBJ)

# The fixtures the harnesses copy, by absolute path: a reproducer runs from anywhere.
$(BUILD)/tests/fuzz/fuzz.o: tests/fuzz/fuzz.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -DWEFT_FUZZ_FIXTURES='"$(CURDIR)/tests/fixtures"' -c $< -o $@

$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz.o $(LIB)
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Each bench prints its figures and PASS/MISS per target; it fails only when
# it cannot run. The weft binary's path is passed for the whole-process bench;
# bench_python.py times the Python package over $(SO) (Debian's python3).
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
bench: $(BENCHES) $(WEFT) $(SO)
	@for b in $(BENCHES); do $$b $(WEFT) || exit 1; echo; done
	@if command -v $(PYTHON) >/dev/null 2>&1; then $(PYTHON) bench/bench_python.py $(BUILD) || exit 1; \
	 else echo "bench_python: skipped (no python3)"; fi

clean:
	rm -rf build

-include $(PIC_OBJ:.o=.d) $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) $(BENCHES:=.d) \
         $(FUZZ_OBJ:.o=.d)
