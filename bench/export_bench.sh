#!/usr/bin/env bash
# Exporters at fleet size: one large function_graph trace (default 50M
# calls: bench/readers_prog.c, -O2 -g -pg, 7 calls per iteration), then
# each exporter timed against `ftrail show` on the same trace:
#
#   show      ftrail show | cat >/dev/null          (the reference)
#   chrome    export --format chrome -o - | wc -c
#   perfetto  export --format perfetto -o - | wc -c
#   ctf       export --format ctf -o DIR            (size: the directory)
#   pprof     export --format pprof -o FILE.pb.gz   (aggregated: small)
#
# Printed per row: wall and CPU seconds (user + sys, the pipe included),
# max RSS of the exporter, output bytes, and the ratios to show and to the
# Chrome JSON's size.  Streaming keeps every RSS flat whatever the length.
#
#   bench/export_bench.sh [CALLS] [THREADS]      (env BUILD=build)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, need_built
bench_setup export-bench
CALLS=${1:-50000000}
THREADS=${2:-1}
ITER=$(((CALLS + 7 * THREADS - 1) / (7 * THREADS)))

need_built "$FTRAIL"
[ -x /usr/bin/time ] || { echo "export_bench: needs /usr/bin/time"; exit 1; }
gcc -O2 -g -pg -o "$W/prog" "$TOP/bench/readers_prog.c" -lpthread || exit 1
cd "$W" || exit 1
"$FTRAIL" record -b 262144 -o ft.dat -- ./prog "$ITER" "$THREADS" >/dev/null 2>ft.err || { cat ft.err; exit 1; }
grep -q '(0 lost)' ft.err || { echo "export_bench: ftrail lost events: $(cat ft.err)"; exit 1; }
calls=$("$FTRAIL" report -i ft.dat | awk '$NF ~ /^(leaf|mid|top)$/ { n += $(NF - 1) } END { print n }')
echo "# export: $THREADS thread(s), $calls calls of leaf/mid/top, trace file $(stat -c %s ft.dat) bytes"
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %9s %9s %10s %14s %9s %9s\n' what wall_s cpu_s maxrss_kb bytes cpu/show size/json

# "wall cpu maxrss_kb" of the shell command $1; its stdout (a byte count) in $W/out
run() {
	/usr/bin/time -o "$W/time.out" -f '%e %U %S %M' bash -c "$1" >"$W/out" 2>"$W/err" ||
		{ echo "export_bench: failed: $1: $(tail -n 3 "$W/err")" >&2; exit 1; }
	read -r w u s m <"$W/time.out"
	echo "$w $(echo "$u + $s" | bc) $m"
}
row() { # name command (prints the bytes written on stdout)
	local r b
	r=$(run "$2")
	b=$(tail -n 1 "$W/out")
	echo "$r $b" >"$W/$1.res"
}
row show "'$FTRAIL' show -i ft.dat | wc -c"
row chrome "'$FTRAIL' export --format chrome -i ft.dat -o - | wc -c"
row perfetto "'$FTRAIL' export --format perfetto -i ft.dat -o - | wc -c"
row ctf "rm -rf c.ctf; '$FTRAIL' export --format ctf -i ft.dat -o c.ctf && du -sb c.ctf | cut -f1"
row pprof "'$FTRAIL' export --format pprof -i ft.dat -o p.pb.gz && stat -c %s p.pb.gz"
col() { cut -d' ' -f"$2" "$W/$1.res"; }
for k in show chrome perfetto ctf pprof; do
	printf '%-9s %9s %9s %10s %14s %9s %9s\n' "$k" "$(col $k 1)" "$(col $k 2)" "$(col $k 3)" "$(col $k 4)" \
		"$(echo "scale=2; $(col $k 2) / $(col show 2)" | bc)" \
		"$(echo "scale=3; $(col $k 4) / $(col chrome 4)" | bc)"
done
