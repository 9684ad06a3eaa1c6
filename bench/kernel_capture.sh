#!/usr/bin/env bash
# Kernel capture benchmark: the same workload (bench/kernel_pingpong.c, two
# processes bouncing a byte over pipes, 2 context switches per round) is
# recorded with sched:sched_switch and kernel stacks by ftrail and by
# trace-cmd, side by side in the same run:
#
#   ftrail record -p nop -e sched:sched_switch -f FILTER -T -o F.dat -- WORKLOAD
#   trace-cmd record -e sched:sched_switch -f FILTER -T -o T.dat -- WORKLOAD
#
# FILTER (prev_comm == "kernel_pingpong") keeps the same events in both
# files whatever else runs on the machine.  Printed: events in each file,
# events lost, whole-file size and ratio (target: ftrail <= 25% of
# trace-cmd), event-data bytes per event, recorder CPU time (the recorder
# process and its children, minus the workload's own CPU time, which it
# reports itself).  Needs root and trace-cmd; run via trace-cmd-here where
# the kernel refuses the function-tracer files.
#
#   bench/kernel_capture.sh [ROUNDS]   (default 20000 rounds, ~40000 events)
#   env: BUILD=build  TRACE_CMD=/work/shared/tools/trace-cmd-here
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
FTRAIL=${FTRAIL:-$BUILD/ftrail}
WORK=$BUILD/bench/kernel_pingpong
SECT=$BUILD/bench/kernel_sections
ROUNDS=${1:-20000}
if [ -z "${TRACE_CMD:-}" ]; then
	if [ -x /work/shared/tools/trace-cmd-here ]; then
		TRACE_CMD=/work/shared/tools/trace-cmd-here
	else
		TRACE_CMD=trace-cmd
	fi
fi
FILTER='prev_comm == "kernel_pingpong"'

[ "$(id -u)" = 0 ] || { echo "kernel_capture: needs root"; exit 77; }
for b in "$FTRAIL" "$WORK" "$SECT"; do
	[ -x "$b" ] || { echo "kernel_capture: missing $b (make BUILD=$BUILD)"; exit 1; }
done
command -v trace-cmd >/dev/null || { echo "kernel_capture: needs trace-cmd"; exit 77; }

D=$(mktemp -d /tmp/ftrail-kbench.XXXXXX)
trap 'rm -rf "$D"' EXIT

# cpu_of CMD...: run, print "user+sys seconds of CMD and its children"
cpu_of() {
	/usr/bin/time -f '%U %S' -o "$D/time" "$@" >"$D/out" 2>"$D/err"
	local rc=$?
	awk '{ printf "%.3f\n", $1 + $2 }' "$D/time" | tail -n 1
	return $rc
}

# --- ftrail -------------------------------------------------------------
export KPP_CPU_FILE=$D/wcpu
if ! ft_cpu=$(cpu_of "$FTRAIL" record -p nop -e sched:sched_switch -f "$FILTER" -T \
		-o "$D/f.dat" -- "$WORK" "$ROUNDS"); then
	if grep -q 'not complete' "$D/err"; then
		# this build has no user-space recorder yet: record system-wide
		# around the workload instead (the filter keeps the same events)
		/usr/bin/time -f '%U %S' -o "$D/time" "$FTRAIL" record -e sched:sched_switch \
			-f "$FILTER" -T -a -o "$D/f.dat" >"$D/out" 2>"$D/err" &
		tpid=$!
		rec=
		for _ in $(seq 50); do
			rec=$(ls -d /sys/kernel/tracing/instances/ftrail-* 2>/dev/null |
				sed -n 's/.*ftrail-//p' | while read -r p; do
					[ "$(cut -d' ' -f4 /proc/$p/stat 2>/dev/null)" = $tpid ] && echo $p
				done | head -n 1)
			[ -n "$rec" ] && break
			sleep 0.1
		done
		[ -n "$rec" ] || { echo "kernel_capture: ftrail did not start"; cat "$D/err"; exit 1; }
		sleep 0.3
		"$WORK" "$ROUNDS"
		sleep 0.3
		kill -INT "$rec"
		wait $tpid
		ft_cpu=$(awk '{ printf "%.3f\n", $1 + $2 }' "$D/time" | tail -n 1)
		echo 0 >"$D/wcpu" # the workload is not the recorder's child here
	else
		cat "$D/err"
		exit 1
	fi
fi
ft_wcpu=$(cat "$D/wcpu" 2>/dev/null || echo 0)
ft_lost=$(sed -n 's/.*kernel events (\([0-9]*\) lost).*/\1/p' "$D/err")
ft_events=$("$FTRAIL" show -i "$D/f.dat" | grep -c ' sched_switch: ')
ft_size=$(stat -c %s "$D/f.dat")
ft_data=$("$SECT" "$D/f.dat" | awk '$1 == "KDATA" || $1 == "STACKMAP" { s += $2 } END { print s + 0 }')

# --- trace-cmd ----------------------------------------------------------
rm -f "$D/wcpu"
tc_cpu=$(cpu_of "$TRACE_CMD" record -e sched:sched_switch -f "$FILTER" -T -o "$D/t.dat" \
	-- "$WORK" "$ROUNDS") || { cat "$D/err"; exit 1; }
tc_wcpu=$(cat "$D/wcpu" 2>/dev/null || echo 0)
tc_lost=$(cat "$D/out" "$D/err" | awk '/overrun:/ { s += $2 } END { print s + 0 }')
trace-cmd report -i "$D/t.dat" >"$D/t.txt" 2>/dev/null
tc_events=$(grep -c ' sched_switch: ' "$D/t.txt")
tc_size=$(stat -c %s "$D/t.dat")
# event data of a trace-cmd file: the per-CPU flyrecord sizes
tc_data=$(trace-cmd dump -i "$D/t.dat" --flyrecord 2>/dev/null |
	awk '/data offset and size/ { s += $3 } END { print s + 0 }')
[ "$tc_data" -gt 0 ] 2>/dev/null || tc_data=$tc_size

rcpu() { # total workload -> recorder CPU
	[ "$1" = n/a ] && { echo n/a; return; }
	awk -v t="$1" -v w="$2" 'BEGIN { d = t - w; if (d < 0) d = 0; printf "%.3f", d }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f%%", 100 * a / b; else print "n/a" }'; }
per() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }

printf 'kernel capture: sched_switch + kernel stacks, %s ping-pong rounds\n' "$ROUNDS"
printf '%-10s %10s %8s %12s %14s %14s\n' recorder events lost file_bytes data_B/event recorder_cpu_s
printf '%-10s %10s %8s %12s %14s %14s\n' ftrail "$ft_events" "${ft_lost:-?}" "$ft_size" \
	"$(per "$ft_data" "$ft_events")" "$(rcpu "$ft_cpu" "$ft_wcpu")"
printf '%-10s %10s %8s %12s %14s %14s\n' trace-cmd "$tc_events" "$tc_lost" "$tc_size" \
	"$(per "$tc_data" "$tc_events")" "$(rcpu "$tc_cpu" "$tc_wcpu")"
printf 'file size ftrail/trace-cmd: %s (target <= 25%%)\n' "$(ratio "$ft_size" "$tc_size")"
printf 'bytes per event ftrail/trace-cmd: %s\n' \
	"$(ratio "$(per "$ft_size" "$ft_events")" "$(per "$tc_size" "$tc_events")")"
ok=1
awk -v a="$ft_size" -v b="$tc_size" 'BEGIN { exit !(a <= 0.25 * b) }' || ok=0
[ "${ft_lost:-1}" -le "$tc_lost" ] 2>/dev/null || ok=0
[ $ok = 1 ] && echo "targets met" || echo "targets NOT met"
