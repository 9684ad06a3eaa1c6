#!/usr/bin/env bash
# Lossless by default, checked on real programs while other processes
# compete for the CPUs: each workload of bench/realprog_lib.sh (Lua built
# -pg, -fpatchable-function-entry and -finstrument-functions; SQLite and
# zstd -T3 built -pg) is recorded RUNS times with `ftrail record` and no
# option, while HOGS busy loops run beside it.  Printed per workload: how
# many runs lost nothing, the records and losses of each run (from the
# recorder's summary), the recorder's peak shared memory and how long the
# program's threads waited for it, and the slowest run's wall time.
#
#   bench/lossless.sh [lua|sqlite|zstd]...     (default: all three)
#   env: RUNS=10  HOGS=2  WORK=/var/tmp/ftrail-realprog  BUILD=build
#
# Not part of make check: the default takes 10-20 minutes on 2 CPUs.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
FTRAIL=$TOP/$BUILD/ftrail
WORK=${WORK:-/var/tmp/ftrail-realprog}
RUNS=${RUNS:-10}
HOGS=${HOGS:-2}
PROGS=${*:-lua sqlite zstd}

die() { echo "lossless: $*" >&2; exit 1; }
[ -x "$FTRAIL" ] || die "build ftrail first (make -j2)"
. "$TOP/bench/realprog_lib.sh"

hog_pids=()
stop_hogs() {
	[ ${#hog_pids[@]} -gt 0 ] && kill "${hog_pids[@]}" 2>/dev/null
	wait 2>/dev/null
	hog_pids=()
}
trap stop_hogs EXIT
start_hogs() {
	local i
	for ((i = 0; i < HOGS; i++)); do
		(while :; do :; done) &
		hog_pids+=($!)
	done
}

# one workload RUNS times; prints its line and returns 1 when a run lost
lossless_one() { # prog variant
	local p=$1 v=$2 cmd i out lost recs ok=0 losses="" waits="" mem="" t0 t1 worst=0 ms
	cmd=$(workload "$p" "$v")
	out=$W/lossless-$p-$v
	for ((i = 1; i <= RUNS; i++)); do
		t0=$(date +%s%N)
		# shellcheck disable=SC2086
		(cd "$W" && "$FTRAIL" record -o "$out.dat" -- $cmd >/dev/null 2>"$out.err")
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		[ $ms -gt $worst ] && worst=$ms
		recs=$(sed -n 's/^ftrail: \([0-9]*\) user records (\([0-9]*\) lost).*/\1/p' "$out.err" | head -n 1)
		lost=$(sed -n 's/^ftrail: \([0-9]*\) user records (\([0-9]*\) lost).*/\2/p' "$out.err" | head -n 1)
		[ -n "$recs" ] || die "$p-$v run $i: no summary from the recorder: $(tail -n 1 "$out.err")"
		[ "$lost" = 0 ] && ok=$((ok + 1))
		losses="$losses $lost"
		mem=$(sed -n 's/.*per thread, \([0-9.]* [KMG]iB\) shared memory at most.*/\1/p' "$out.err" | head -n 1)
		waits="$waits $(sed -n 's/.*waited for the recorder [0-9]* times\{0,1\}, \([0-9.]*\) s in all.*/\1/p' "$out.err" | head -n 1)"
	done
	rm -f "$out.dat"
	printf '%-7s %-4s %2d/%d lossless  records %11s  lost per run:%s  shm %s  waited (s):%s  slowest %.1f s\n' \
		"$p" "$v" "$ok" "$RUNS" "$recs" "$losses" "${mem:-?}" "$waits" "$(awk -v m=$worst 'BEGIN { print m / 1000 }')"
	[ "$ok" = "$RUNS" ]
}

for p in $PROGS; do # build first, so the hogs compete with the runs only
	case $p in
	lua) build_lua pg -pg && build_lua pfe -fpatchable-function-entry=5 && build_lua cyg -finstrument-functions ;;
	sqlite) build_sqlite pg -pg ;;
	zstd) build_zstd pg -pg && zstd_input ;;
	*) die "unknown program '$p' (lua, sqlite, zstd)" ;;
	esac
done

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) before the hogs; $("$FTRAIL" version)"
echo "$RUNS runs each of 'ftrail record -o F -- PROG' with default options, $HOGS busy loops beside"
start_hogs
fail=0
for p in $PROGS; do
	case $p in
	lua) for v in pg pfe cyg; do lossless_one lua $v || fail=1; done ;;
	sqlite) lossless_one sqlite pg || fail=1 ;;
	zstd) lossless_one zstd pg || fail=1 ;;
	esac
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
