#!/usr/bin/env bash
# Regenerate the recorded seeds of the fuzz corpus (tests/fuzz/corpus/gen-*)
# from real recordings, so that they follow the trace format when it
# changes: each seed is a small program of tests/progs recorded by the
# build's ftrail, then made small by shrink.py (sections written back
# uncompressed, the symbol tables cut to the names the trace shows).
#
#   tests/fuzz/make_corpus.sh [OUTDIR]     (default tests/fuzz/corpus; env BUILD=build)
#
# Kernel seeds need root and tracefs; without them they are left as they
# are, with a line saying so.  The hand-made seeds (bad*, cut*, regress-*,
# fsmb-*) and the inputs the fuzzer found are not touched: they test what
# no recording writes.  Exit status: 0, or 1 when a recording fails.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
OUT=${1:-$TOP/tests/fuzz/corpus}
FTRAIL=$BUILD/ftrail
P=$TOP/tests/progs
[ -x "$FTRAIL" ] || { echo "make_corpus: build first ($FTRAIL missing)"; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/ftrail-corpus.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

# seed NAME RECORD-OPTIONS... -- PROG ARGS: record, shrink to $OUT/gen-NAME
seed() {
	local name=$1
	shift
	if ! "$FTRAIL" record -q -o "$name.dat" "$@" >"$name.out" 2>"$name.err"; then
		echo "make_corpus: $name: record failed: $(tail -n 3 "$name.err")"
		exit 1
	fi
	# the names the trace shows: the symbol tables keep only these
	"$FTRAIL" show --expand-stacks -i "$name.dat" 2>/dev/null | tr -c 'A-Za-z0-9_.' '\n' |
		sort -u >"$name.names"
	python3 "$TOP/tests/fuzz/shrink.py" "$name.dat" "$OUT/gen-$name" "$name.names" ||
		{ echo "make_corpus: $name: shrink.py failed"; exit 1; }
	echo "gen-$name: $(wc -c <"$OUT/gen-$name") bytes"
}

cc -O1 -pg -mfentry -o basic "$P/basic.c" || exit 1
cc -O1 -fpatchable-function-entry=5 -o basic-pfe "$P/basic.c" || exit 1
cc -O2 -pg -mfentry -o tailcall "$P/tailcall.c" || exit 1
cc -O1 -pg -mfentry -pthread -o threads "$P/threads.c" || exit 1
cc -O1 -I"$TOP/include" -o ev_types "$P/ev_types.c" || exit 1

seed func -p function -- ./basic
seed graph -p function_graph -- ./basic-pfe
seed graph-stacks -p function_graph -T -- ./tailcall 8
seed func-stacks-full -p function -T -O nostackmap -- ./tailcall 4
seed threads -p function_graph -- ./threads
seed events -p nop -e u:all -- ./ev_types

if [ "$(id -u)" != 0 ] || ! grep -qw tracefs /proc/filesystems; then
	echo "make_corpus: kernel seeds kept as they are (needs root and tracefs)"
	exit 0
fi
cc -O2 -pg -mfentry -fno-omit-frame-pointer -o ks "$P/kstack_sleep.c" || exit 1
cc -O1 -g -pg -mfentry -pthread -o blocks "$P/offcpu_blocks.c" || exit 1
seed kern-switch -p function_graph --no-libcall -e sched:sched_switch -O userstacktrace -- ./ks
seed kern-offcpu -e sched:sched_switch -f 'prev_comm == "blocks" || next_comm == "blocks"' \
	-e sched:sched_wakeup -f 'comm == "blocks"' -T -- ./blocks --long 20 --short 2 --count 1
exit 0
