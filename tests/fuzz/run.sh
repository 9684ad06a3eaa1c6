#!/usr/bin/env bash
# Build the trace-reader fuzz target with libFuzzer + ASan + UBSan and run it
# for a bounded time on the seed corpus (tests/fuzz/corpus/).
#
#   tests/fuzz/run.sh                 60 s, seed 1 (the suite's run: repeatable)
#   FUZZ_SECONDS=1800 FUZZ_SEED=0 FUZZ_CORPUS=build-fuzz/corpus tests/fuzz/run.sh
#                                     30 min, a random seed, and a working
#                                     corpus that is kept from run to run
#   FUZZ_FOCUS="kernel:1" tests/fuzz/run.sh   one group of readers only
#
# The time is shared between groups of readers (FUZZ_FOCUS, default
# "trace:2 kernel:2 export:1": name:weight, see FTRAIL_FUZZ_FOCUS in
# fuzz_reader.c), one libFuzzer run each, in that order, on one corpus.
# Exit status: 0 no finding; 1 a finding (crash, leak, timeout, out of
# memory: the input is saved under tests/fuzz/findings/, which git ignores,
# and its path printed); 2 our target does not build or libFuzzer itself
# failed; 77 only when this machine cannot build any fuzz target (no clang,
# or a clang without the libFuzzer and sanitizer runtimes: a one-line
# target is tried first); the suite counts it as skipped.
# New interesting inputs go to FUZZ_CORPUS (default: a scratch directory
# removed at the end), never into the repository; to grow the committed
# corpus, minimise by hand (-merge=1) and commit.  The recorded seeds
# (corpus/gen-*) come from tests/fuzz/make_corpus.sh: run it again when the
# trace format changes.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
SECS=${FUZZ_SECONDS:-60}
SEED=${FUZZ_SEED:-1}
OUT=${FUZZ_BUILD:-build-fuzz}
CC=${FUZZ_CC:-clang}
mkdir -p "$OUT" tests/fuzz/findings
command -v "$CC" >/dev/null || { echo "cannot build: needs clang with libFuzzer ($CC not found)"; exit 77; }
FLAGS="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
# the toolchain itself: a target that cannot fail to compile
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n > 1 ? d[0] : 0; }' >"$OUT/probe.c"
# shellcheck disable=SC2086
if ! $CC $FLAGS -o "$OUT/probe" "$OUT/probe.c" >"$OUT/probe.log" 2>&1; then
	echo "cannot build: $CC has no libFuzzer/ASan/UBSan runtime ($(head -n 1 "$OUT/probe.log"))"
	exit 77
fi

# Every reader and analysis (analysis/), and all of core/ (what they call
# into), built with coverage; the same include paths and libraries as the
# Makefile, and the published schemas (third_party/*/*.proto) compiled by
# protoc-c into $OUT/gen as the Makefile compiles them into build/gen.
mkdir -p "$OUT/gen"
for p in third_party/*/*.proto; do
	[ -e "$p" ] || continue
	protoc-c --proto_path=. --c_out="$OUT/gen" "$p" || { echo "protoc-c failed on $p"; exit 2; }
done
SRC="tests/fuzz/fuzz_reader.c tests/fuzz/trace_mutator.c $(ls analysis/*.c core/*.c) $(find "$OUT/gen" -name '*.pb-c.c' | sort)"
PKGS="libtracefs libtraceevent libzstd libelf libdw zlib libprotobuf-c"
# Coverage: -fsanitize=fuzzer also traces every integer comparison
# (trace-cmp), which in the decoders' per-event loops was 40% of an
# execution.  It is kept where it pays, in the file's index and the FSMB
# parser (core/tracefile.c, core/stackmap.c: the magic numbers, versions,
# section types and sizes that gate the rest); behind them the mutator
# (trace_mutator.c) keeps sections well formed, and the string and memory
# comparisons (event and field names, META keys) still feed libFuzzer's
# dictionary through its interceptors.
mkdir -p "$OUT/obj"
OBJS=
for f in $SRC; do
	o="$OUT/obj/$(echo "$f" | tr / _).o"
	case $f in
	core/tracefile.c | core/stackmap.c) cov="-fsanitize=fuzzer-no-link" ;;
	*) cov="-fsanitize=fuzzer-no-link -fno-sanitize-coverage=trace-cmp" ;;
	esac
	# shellcheck disable=SC2086,SC2046
	if ! $CC -c -g -O1 -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer $cov \
		-fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-I. -I"$OUT/gen" -Iinclude $(pkg-config --cflags $PKGS) -o "$o" "$f" \
		2>"$OUT/build.log"; then
		cat "$OUT/build.log"
		echo "fuzz target does not build ($f)"
		exit 2
	fi
	OBJS="$OBJS $o"
done
# shellcheck disable=SC2086,SC2046
if ! $CC $FLAGS -o "$OUT/fuzz_reader" $OBJS $(pkg-config --libs $PKGS) -liberty -lpthread -lm -ldl \
	2>"$OUT/build.log"; then
	cat "$OUT/build.log"
	echo "fuzz target does not link"
	exit 2
fi

# leaks inside libtraceevent itself (see the file) are not ours to fix
export LSAN_OPTIONS=suppressions=$TOP/tests/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
# Per-input costs of ASan itself, measured with perf on the kernel group:
# - a 4 MB quarantine (256 MB by default) keeps the last 4 MB freed
#   poisoned, which still catches a use soon after its free (most inputs
#   free under 1 MB in all; 3 to 6% free more than 4 MB), and keeps the
#   heap small: the format sandbox forks (analysis/kevents.c), and after
#   each fork every heap page the parent writes again is a copy-on-write
#   fault; 16 MB took 2.6M page faults per 15,000 executions, 4 MB 1.1M
#   (15% less CPU);
# - new blocks are filled with 0xbe up to 256 bytes (max_malloc_fill_size,
#   4 KB by default): struct fields read before they are written still show
#   the pattern, but libtraceevent's 4 KB trace_seq buffer, allocated and
#   filled per printed event, was up to 12% of the time in memset.
# - allocation and free stacks are kept 10 frames deep (malloc_context_size,
#   30 by default): unwinding and storing them was 8% of the kernel group
#   (perf), and equal runs took 12 to 24% less CPU; 10 frames still name
#   the reader's function and its callers in a report.  lsan.supp needs no deeper stack here: the target has LSan
#   ignore whatever tep_parse_event() allocates (fuzz_reader.c), at any
#   depth.
export ASAN_OPTIONS=quarantine_size_mb=4:max_malloc_fill_size=256:malloc_context_size=10${ASAN_OPTIONS:+:$ASAN_OPTIONS}
SCRATCH=$(mktemp -d /tmp/ftrail-fuzz.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
CORPUS=${FUZZ_CORPUS:-$SCRATCH/corpus}
mkdir -p "$CORPUS"
FOCUS=${FUZZ_FOCUS:-trace:2 kernel:2 export:1}
weights=0
for g in $FOCUS; do weights=$((weights + ${g#*:})); done
runs=0
for g in $FOCUS; do
	name=${g%%:*}
	secs=$((SECS * ${g#*:} / weights))
	[ "$secs" -ge 1 ] || secs=1
	echo "fuzz: $name for ${secs}s"
	# a finding exits 1 whatever its kind (libFuzzer's default is 77, which
	# tests/run.sh would count as skipped); anything else is libFuzzer failing.
	# -reload=0: the groups run one after another, so nothing else adds to
	# the corpus meanwhile; rescanning it every second cost 1.6%.
	FTRAIL_FUZZ_FOCUS=$name "$OUT/fuzz_reader" -seed="$SEED" -max_total_time="$secs" \
		-max_len=65536 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
		-print_final_stats=1 -error_exitcode=1 -timeout_exitcode=1 -reload=0 \
		-artifact_prefix="$TOP/tests/fuzz/findings/" "$CORPUS" tests/fuzz/corpus \
		>"$SCRATCH/log" 2>&1
	rc=$?
	grep -v '^#[0-9].*\(NEW\|REDUCE\|pulse\) ' "$SCRATCH/log"
	if [ "$rc" -ne 0 ]; then
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$SCRATCH/log" | tail -n 1)
		if [ -n "$art" ]; then
			kind=$(grep -m1 -o 'ERROR: [A-Za-z]*Sanitizer: [A-Za-z-]*\|ERROR: libFuzzer: [A-Za-z-]*' "$SCRATCH/log")
			echo "FUZZ FINDING (${kind:-exit $rc}): reproduce with FTRAIL_FUZZ_FOCUS=$name $OUT/fuzz_reader $art"
			exit 1
		fi
		echo "fuzz: libFuzzer failed (exit $rc) without a finding"
		exit 2
	fi
	# the last count (libFuzzer prints its stats twice when it reports at exit)
	n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)$/\1/p' "$SCRATCH/log" | tail -n 1)
	runs=$((runs + ${n:-0}))
done
echo "fuzz: no finding in ${SECS}s, $runs executions"
exit 0
