#!/usr/bin/env bash
# Build the trace-reader fuzz target with libFuzzer + ASan + UBSan and run it
# for a bounded time on a copy of the seed corpus (tests/fuzz/corpus/).
#
#   tests/fuzz/run.sh                 60 s
#   FUZZ_SECONDS=600 tests/fuzz/run.sh
#   FUZZ_SEED=0 tests/fuzz/run.sh     a random seed (exploring); the suite
#                                     uses seed 1 so its run is repeatable
#
# Exit status: 0 no crash, 1 a crash/leak/timeout (the input is saved under
# tests/fuzz/findings/, which git ignores), 77 when clang cannot build it.
# New interesting inputs go to a scratch corpus, never into the repository;
# to grow the committed corpus, minimise by hand (-merge=1) and commit.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
SECS=${FUZZ_SECONDS:-60}
SEED=${FUZZ_SEED:-1}
OUT=${FUZZ_BUILD:-build-fuzz}
CC=${FUZZ_CC:-clang}
mkdir -p "$OUT" tests/fuzz/findings
command -v "$CC" >/dev/null || { echo "needs clang with libFuzzer"; exit 77; }

# Every reader and analysis (analysis/), and all of core/ (what they call
# into), built with coverage; the same include paths and libraries as the
# Makefile.
SRC="tests/fuzz/fuzz_reader.c $(ls analysis/*.c core/*.c)"
PKGS="libtracefs libtraceevent libzstd libelf libdw"
# shellcheck disable=SC2086
if ! $CC -g -O1 -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I. -Iinclude $(pkg-config --cflags $PKGS) \
	-o "$OUT/fuzz_reader" $SRC $(pkg-config --libs $PKGS) -liberty -lpthread -lm -ldl \
	2>"$OUT/build.log"; then
	cat "$OUT/build.log"
	echo "fuzz target does not build"
	exit 1
fi

# leaks inside libtraceevent itself (see the file) are not ours to fix
export LSAN_OPTIONS=suppressions=$TOP/tests/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
WORK=$(mktemp -d /tmp/ftrail-fuzz.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$OUT/fuzz_reader" -seed="$SEED" -max_total_time="$SECS" -max_len=65536 -timeout=20 \
	-rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$TOP/tests/fuzz/findings/" "$WORK" tests/fuzz/corpus
rc=$?
if [ $rc -ne 0 ]; then
	echo "FUZZ FAILURE (exit $rc): reproducer in tests/fuzz/findings/"
	exit 1
fi
echo "fuzz: no crash in ${SECS}s"
