#!/usr/bin/env bash
# Readers side by side with uftrace on the same program, in one run:
#
#   bench/readers_prog.c built with -O2 -g -pg (a tree of small calls:
#   ITER * 7 calls per thread), recorded once by `uftrace record` and once
#   by `ftrail record` (buffers large enough that nothing is lost), then
#
#     show   ftrail show | cat >/dev/null     vs  uftrace replay | cat >/dev/null
#            (and ftrail show >FILE: what a file costs the same text)
#     report ftrail report >/dev/null         vs  uftrace report >/dev/null
#     flame  ftrail flame --stacks --format folded   vs  ftrail stacks (on a -T trace)
#     export ftrail export --format F         vs  ftrail show, for every F:
#            chrome (the first, measured both ways), speedscope, perfetto
#            to a pipe (-o - | cat, as show is measured) and to a file;
#            pprof and ctf to a file (a gzip, a directory)
#
# Each reader runs RUNS times; the best wall time and the best CPU time
# (user + sys of the reader and its children, the pipe's cat included on
# both sides) are kept.  Printed: seconds and the ratio uftrace / ftrail
# (targets: >= 10 for show and report), flame / stacks (<= 1) and export /
# show (<= 2), and each reader's max RSS.  An export to a file is also
# divided by show to a file: writing to the page cache costs per byte, and
# there it costs both the same.  On a loaded machine wall times are noise:
# read the CPU columns.
#
#   bench/readers_bench.sh [ITER] [THREADS]      (env BUILD=build, RUNS=3)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
. "$TOP/bench/lib.sh" # bench_setup, need_built
bench_setup readers-bench
ITER=${1:-300000}
THREADS=${2:-1}

need_built "$FTRAIL"
command -v uftrace >/dev/null 2>&1 || { echo "readers_bench: uftrace is not installed"; exit 1; }
gcc -O2 -g -pg -o "$W/prog" "$TOP/bench/readers_prog.c" -lpthread || exit 1
cd "$W" || exit 1
uftrace record -d uft.data ./prog "$ITER" "$THREADS" >/dev/null 2>uft.err || { cat uft.err; exit 1; }
"$FTRAIL" record -b 262144 -o ft.dat -- ./prog "$ITER" "$THREADS" >/dev/null 2>ft.err || { cat ft.err; exit 1; }
"$FTRAIL" record -T -b 262144 -o ftT.dat -- ./prog "$((ITER / 5))" "$THREADS" >/dev/null 2>ftT.err ||
	{ cat ftT.err; exit 1; }
grep -q '(0 lost)' ft.err || { echo "readers_bench: ftrail lost events: $(cat ft.err)"; exit 1; }

# best_run CMD: best "wall cpu maxrss_kb" of RUNS runs of the shell command CMD
best_run() {
	local bw= bc= bm= r w u s c m
	for ((r = 0; r < RUNS; r++)); do
		/usr/bin/time -o "$W/time.out" -f '%e %U %S %M' bash -c "$1" >/dev/null 2>&1 ||
			{ echo "readers_bench: failed: $1" >&2; exit 1; }
		read -r w u s m <"$W/time.out"
		c=$(echo "$u + $s" | bc)
		[ -z "$bw" ] || [ "$(echo "$w < $bw" | bc)" = 1 ] && bw=$w
		[ -z "$bc" ] || [ "$(echo "$c < $bc" | bc)" = 1 ] && bc=$c
		[ -z "$bm" ] || [ "$m" -gt "$bm" ] && bm=$m
	done
	echo "$bw $bc $bm"
}


lines=$("$FTRAIL" show -i ft.dat | wc -l)
calls=$("$FTRAIL" report -i ft.dat | awk '$NF ~ /^(leaf|mid|top)$/ { n += $(NF - 1) } END { print n }')
echo "# readers: $THREADS thread(s), $ITER iterations: $calls calls of leaf/mid/top, show prints $lines lines"
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-34s %8s %8s %9s\n' what command wall_s cpu_s maxrss_kb
row() { # name label command
	local r
	r=$(best_run "$3")
	printf '%-8s %-34s %8s %8s %9s\n' "$1" "$2" $r
	echo "$r" >"$W/$1.res"
}
row show "ftrail show | cat" "'$FTRAIL' show -i ft.dat | cat"
row showf "ftrail show >FILE" "'$FTRAIL' show -i ft.dat >show.txt"
row replay "uftrace replay | cat" "uftrace replay -d uft.data | cat"
row report "ftrail report" "'$FTRAIL' report -i ft.dat"
row ureport "uftrace report" "uftrace report -d uft.data"
row stacks "ftrail stacks (-T trace)" "'$FTRAIL' stacks -i ftT.dat"
row flame "ftrail flame --stacks --format folded" "'$FTRAIL' flame --stacks --format folded -i ftT.dat -o fl.txt"
row export "ftrail export --format chrome" "'$FTRAIL' export --format chrome -i ft.dat -o x.json"
row xchrome "export chrome -o - | cat" "'$FTRAIL' export --format chrome -i ft.dat -o - | cat"
row xspeed "export speedscope -o - | cat" "'$FTRAIL' export --format speedscope -i ft.dat -o - | cat"
row xspeedf "export speedscope -o FILE" "'$FTRAIL' export --format speedscope -i ft.dat -o x.ss"
row xperf "export perfetto -o - | cat" "'$FTRAIL' export --format perfetto -i ft.dat -o - | cat"
row xperff "export perfetto -o FILE" "'$FTRAIL' export --format perfetto -i ft.dat -o x.pf"
row xpprof "export pprof -o FILE" "'$FTRAIL' export --format pprof -i ft.dat -o x.pb.gz"
row xctf "export ctf -o DIR" "'$FTRAIL' export --format ctf --force -i ft.dat -o xctf"
col() { cut -d' ' -f"$2" "$W/$1.res"; }
echo "# ratios (wall, cpu)"
echo "show:   uftrace replay / ftrail show   $(ratio "$(col replay 1)" "$(col show 1)")  $(ratio "$(col replay 2)" "$(col show 2)")   (target >= 10)"
echo "report: uftrace report / ftrail report $(ratio "$(col ureport 1)" "$(col report 1)")  $(ratio "$(col ureport 2)" "$(col report 2)")   (target >= 10)"
echo "flame:  flame --stacks / stacks         $(ratio "$(col flame 1)" "$(col stacks 1)")  $(ratio "$(col flame 2)" "$(col stacks 2)")   (target <= 1)"
echo "export: export chrome / show            $(ratio "$(col export 1)" "$(col show 1)")  $(ratio "$(col export 2)" "$(col show 2)")   (target <= 2; to a file)"
for x in xchrome:chrome xspeed:speedscope xspeedf:speedscope-file xperf:perfetto xperff:perfetto-file xpprof:pprof xctf:ctf; do
	printf 'export: %-30s %s  %s   (target <= 2)\n' "${x#*:} / show" \
		"$(ratio "$(col "${x%%:*}" 1)" "$(col show 1)")" "$(ratio "$(col "${x%%:*}" 2)" "$(col show 2)")"
done
echo "# files against show >FILE (the same sink)"
for x in export:chrome-file xspeedf:speedscope-file xperff:perfetto-file xpprof:pprof xctf:ctf; do
	printf 'export: %-30s %s  %s   (target <= 2)\n' "${x#*:} / show-file" \
		"$(ratio "$(col "${x%%:*}" 1)" "$(col showf 1)")" "$(ratio "$(col "${x%%:*}" 2)" "$(col showf 2)")"
done
printf 'bytes: show %s, chrome %s, speedscope %s, perfetto %s, ctf %s\n' "$(stat -c %s show.txt)" \
	"$(stat -c %s x.json)" "$(stat -c %s x.ss)" "$(stat -c %s x.pf)" "$(du -sb xctf | cut -f1)"
