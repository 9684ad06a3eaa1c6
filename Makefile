# ftrail build.  One Makefile, no recursion; every directory is picked up by
# wildcard so adding a file never needs an edit here.
#
#   make                 tool (build/ftrail), runtime (build/libftrail.so), unit tests
#   make check           the whole test suite (tests/run.sh)
#   make SAN=asan        AddressSanitizer + UBSan build into build-asan/
#   make SAN=tsan        ThreadSanitizer build into build-tsan/
#   make example         record and show the bundled example
#
# Layout (folders follow address spaces, as uftrace's do):
#   core/      shared by the tool and the injected runtime (stack map, ring
#              buffer, record encoding, trace file, symbols, globs, filters)
#   runtime/   libftrail.so, injected into traced programs (LD_PRELOAD);
#              arch/<arch>/ holds the trampolines
#   kernel/    kernel capture through tracefs (libtracefs, libtraceevent)
#   recorder/  spawns or follows the program, drains its rings, drives kernel
#              capture and writes the trace file
#   analysis/  readers of trace files: text formats, reports, graphs, exports
#   live/      a recording seen while it runs: the tracefs-like mount, streaming
#   cmd/       one file per subcommand, plus the dispatch table in ftrail.c
#   tests/     unit/ (cmocka), stress/, e2e/ (numbered shell cases), fuzz/

CC      ?= gcc
SAN     ?=
ifeq ($(SAN),)
BUILD   ?= build
else
BUILD   ?= build-$(SAN)
endif

PKGS     := libtracefs libtraceevent libzstd libelf libdw zlib libprotobuf-c fuse3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# Plain make warns; make check (and so CI) builds with WERROR=1.
WERROR  ?= 0
WARN    := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
           -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(WERROR),1)
WARN    += -Werror
endif
CFLAGS_BASE := -std=gnu11 -g -O2 -fPIC -fno-omit-frame-pointer -D_GNU_SOURCE \
           -I. -I$(BUILD)/gen -Iinclude $(PKG_CFLAGS) $(WARN)

ifeq ($(SAN),asan)
CFLAGS_BASE += -fsanitize=address,undefined -fno-sanitize-recover=undefined -O1
LDSAN   := -fsanitize=address,undefined
else ifeq ($(SAN),tsan)
CFLAGS_BASE += -fsanitize=thread -O1
LDSAN   := -fsanitize=thread
else ifeq ($(SAN),)
LDSAN   :=
else
$(error SAN must be asan or tsan)
endif

CFLAGS  += $(CFLAGS_BASE)

# Quiet by default (kernel style); make V=1 shows the commands.
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-7s %s\n'
endif
# -liberty: the C++ demangler (core/demangle.c, core/symbols.c; Debian libiberty-dev),
# linked into the runtime too, its symbols kept local (--exclude-libs)
LDLIBS  := $(PKG_LIBS) -liberty -lpthread -lm -ldl

CORE_SRC     := $(wildcard core/*.c)
# The runtime is built only from the pieces of core it needs: it lives inside
# someone else's process and must not drag in zstd, libelf or tracefs.
RT_CORE_SRC  := $(filter $(addprefix core/,stackmap.c ringbuf.c glob.c session.c filter.c trigger.c uevent.c lifeline.c argspec.c demangle.c),$(CORE_SRC))
RT_SRC       := $(wildcard runtime/*.c) $(RT_CORE_SRC)
RT_ASM       := $(wildcard runtime/arch/x86_64/*.S)
TOOL_SRC     := $(wildcard cmd/*.c live/*.c recorder/*.c analysis/*.c kernel/*.c)
UNIT_SRC     := $(wildcard tests/unit/*.c)
STRESS_SRC   := $(wildcard tests/stress/*.c)
BENCH_SRC    := $(wildcard bench/*.c)
TOOLS_SRC    := $(wildcard tests/tools/*.c)

# Published schemas (third_party/*/*.proto) compiled by protoc-c into
# $(BUILD)/gen; the exporters include them as "third_party/NAME/X.pb-c.h".
PROTO_SRC := $(wildcard third_party/*/*.proto)
PROTO_H   := $(PROTO_SRC:%.proto=$(BUILD)/gen/%.pb-c.h)
PROTO_OBJ := $(PROTO_SRC:%.proto=$(BUILD)/gen/%.pb-c.o)

CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(BUILD)/%.o) $(PROTO_OBJ)
RT_OBJ    := $(RT_SRC:%.c=$(BUILD)/rt/%.o) $(RT_ASM:%.S=$(BUILD)/rt/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
STRESS_BIN:= $(STRESS_SRC:tests/stress/%.c=$(BUILD)/tests/stress/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
TOOLS_BIN := $(TOOLS_SRC:tests/tools/%.c=$(BUILD)/tests/tools/%)

all: $(BUILD)/ftrail $(BUILD)/libftrail.so $(UNIT_BIN) $(STRESS_BIN) $(BENCH_BIN) $(TOOLS_BIN)

$(BUILD)/libftrail-core.a: $(CORE_OBJ)
	@mkdir -p $(@D)
	$(quiet) AR $@
	$(Q)$(AR) rcs $@ $^

# The tool's layers above core (capture and analyses), for the tool and the
# test binaries that exercise them.
LIB_OBJ   := $(filter-out $(BUILD)/cmd/%,$(TOOL_OBJ))
$(BUILD)/libftrail-tool.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	$(quiet) AR $@
	$(Q)$(AR) rcs $@ $^

$(BUILD)/ftrail: $(TOOL_OBJ) $(BUILD)/libftrail-core.a
	$(quiet) LD $@
	$(Q)$(CC) $(LDSAN) -o $@ $(TOOL_OBJ) $(BUILD)/libftrail-core.a $(LDLIBS)

# The runtime: hidden visibility everywhere but the hooks the compiler emits
# calls to (mcount, __fentry__, __cyg_profile_func_*) and the public API.
# capstone (runtime/dynpatch.c): its headers only; the runtime dlopen()s
# libcapstone.so.4 when --patch asks for it, so nothing else links it.
CAPSTONE_CFLAGS := $(shell pkg-config --cflags capstone 2>/dev/null)
RT_CFLAGS := -fvisibility=hidden -DFTRAIL_RUNTIME -fno-stack-protector $(CAPSTONE_CFLAGS)
$(BUILD)/rt/%.o: %.c
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS) $(RT_CFLAGS) -MMD -MP -c -o $@ $<
$(BUILD)/rt/%.o: %.S
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS_BASE) -DFTRAIL_RUNTIME -c -o $@ $<
$(BUILD)/libftrail.so: $(RT_OBJ)
	$(quiet) LD $@
	$(Q)$(CC) $(LDSAN) -shared -o $@ $^ -lpthread -ldl -Wl,-z,now \
		-liberty -Wl,--exclude-libs,libiberty.a

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: %.proto
	@mkdir -p $(BUILD)/gen
	$(quiet) PROTOC $<
	$(Q)protoc-c --proto_path=. --c_out=$(BUILD)/gen $<
# generated code: the compiler's defaults, not the project's warning set
$(BUILD)/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c
	$(quiet) CC $@
	$(Q)$(CC) $(filter-out $(WARN),$(CFLAGS)) -MMD -MP -c -o $@ $<
# the generated headers exist before anything that may include them is built
$(filter-out $(PROTO_OBJ),$(TOOL_OBJ)): | $(PROTO_H)

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a $(LDSAN) -lcmocka $(LDLIBS)
$(BUILD)/tests/stress/%: tests/stress/%.c $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a $(LDSAN) $(LDLIBS)
# test helpers the e2e cases run (e.g. the synthetic trace generator)
$(BUILD)/tests/tools/%: tests/tools/%.c $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a $(LDSAN) $(LDLIBS)
$(BUILD)/bench/%: bench/%.c $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -O2 -o $@ $< $(BUILD)/libftrail-tool.a $(BUILD)/libftrail-core.a $(LDSAN) $(LDLIBS)

# flamegraph.c embeds these with .incbin, which the compiler's -MMD cannot see
$(BUILD)/analysis/flamegraph.o: analysis/flamegraph.js analysis/flamegraph.css

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

check:
	$(MAKE) WERROR=1 all
	WERROR=1 bash tests/run.sh

example: all
	bash examples/run.sh

# install: the tool, the runtime, the public event header and its ftrail.pc.
# The runtime goes to lib/ftrail/ (it is preloaded, never linked against),
# where the tool finds it relative to its own binary.
PREFIX  ?= /usr/local
# Man pages are generated from the --help texts (scripts/mkman.sh).
man: $(BUILD)/man/ftrail.1
$(BUILD)/man/ftrail.1: $(BUILD)/ftrail scripts/mkman.sh
	$(quiet) MAN $(@D)
	$(Q)sh scripts/mkman.sh $(BUILD)/ftrail $(@D)

install: $(BUILD)/ftrail $(BUILD)/libftrail.so $(BUILD)/man/ftrail.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/ftrail \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/ftrail \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 scripts/completion/ftrail.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ftrail
	install -m 755 $(BUILD)/ftrail $(DESTDIR)$(PREFIX)/bin/ftrail
	install -m 755 $(BUILD)/libftrail.so $(DESTDIR)$(PREFIX)/lib/ftrail/libftrail.so
	install -m 644 include/ftrail/*.h $(DESTDIR)$(PREFIX)/include/ftrail/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e "s|@VERSION@|$$(sed -n 's/.*FTRAIL_VERSION "\(.*\)"/\1/p' core/version.h)|" \
		ftrail.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/ftrail.pc

clean:
	rm -rf build build-asan build-tsan

.PHONY: all check example clean install man
