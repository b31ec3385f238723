# weft — plain Makefile. make | make test | make check | make bench | make run
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
WARN    = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wdouble-promotion -Wformat=2 -Wvla -Wcast-qual -Wundef -Werror
CFLAGS  ?= $(OPT) -g
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(SAN) $(WARN) -Iinclude -Isrc -MMD -MP
LDLIBS  = -lyaml -lm -lpthread
LDFLAGS += $(SAN)

LIB_SRC   = $(sort $(wildcard src/*/*.c))
CLI_SRC   = $(sort $(wildcard cli/*.c))
TEST_SRC  = $(sort $(wildcard tests/unit/*.c))
BENCH_SRC = $(sort $(wildcard bench/*.c))
BENCH_COMMON = $(sort $(wildcard bench/common/*.c))

LIB_OBJ   = $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ   = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ  = $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCHES   = $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
BENCH_OBJ = $(BENCH_COMMON:%.c=$(BUILD)/%.o)

LIB   = $(BUILD)/libweft.a
WEFT  = $(BUILD)/weft
UNIT  = $(BUILD)/test_unit

.PHONY: all deps run test check bench valgrind clean mpi
MAKEFLAGS += --no-print-directory
all: $(LIB) $(WEFT)

# Install what a fresh Debian machine lacks (needs root or sudo).
deps:
	@./scripts/deps.sh

run: deps
	$(MAKE) all
	$(WEFT) optimize data/gpt3_4096npu_4d.yml

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(WEFT): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

# The unit tests also check the CLI's JSON string writer (cli/json.c).
$(UNIT): $(TEST_OBJ) $(BUILD)/cli/json.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) $(BUILD)/cli/json.o $(LIB) $(LDLIBS)

# Each bench/*.c is one program, linked with bench/common/*.c (kept, not
# deleted as an intermediate).
.SECONDARY: $(BENCH_OBJ)
$(BUILD)/bench/%: bench/%.c $(BENCH_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BENCH_OBJ) $(LIB) $(LDLIBS)

test: deps
	$(MAKE) $(UNIT) $(WEFT)
	@./tests/run.sh $(BUILD)

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

# Each bench prints its figures and PASS/MISS per target; it fails only when
# it cannot run. The weft binary's path is passed for the whole-process bench.
bench: $(BENCHES) $(WEFT)
	@for b in $(BENCHES); do $$b $(WEFT) || exit 1; echo; done

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) $(BENCHES:=.d)
