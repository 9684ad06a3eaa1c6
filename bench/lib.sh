# Helpers shared by the benchmark scripts; source it once W (the scratch
# directory the programs run in) and RUNS are set:
#
#   . "$TOP/bench/lib.sh"
#
# best CMD ARGS...   the best (lowest) loop time in ns of RUNS runs of CMD
#                    in $W; the program prints "calls=N ns=T", and "-" is
#                    printed when a run gives no ns= (it failed)

best() {
	local b= out ns
	for ((r = 0; r < RUNS; r++)); do
		out=$(cd "$W" && "$@" 2>/dev/null | grep -o 'ns=[0-9]*' | head -1)
		ns=${out#ns=}
		[ -n "$ns" ] || { echo "-"; return; }
		if [ -z "$b" ] || [ "$ns" -lt "$b" ]; then b=$ns; fi
	done
	echo "$b"
}
