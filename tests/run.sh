#!/usr/bin/env bash
# The whole test suite: unit tests, stress tests, end-to-end cases, the same
# again under sanitizers, and a bounded fuzz run of the trace-file reader.
#
#   tests/run.sh              everything
#   tests/run.sh e2e [PAT]    only end-to-end cases (matching PAT)
#   tests/run.sh e2e-asan [PAT]  the cases marked "# asan: yes" with the
#                             ASan+UBSan tool (leaks and sanitizer reports fail)
#   tests/run.sh lint|unit|stress|asan|tsan|fuzz
#
# End-to-end cases are tests/e2e/tNNNN-name.sh (ftracetest's habit): header
# lines "# description: ..." and "# requires: root tracefs uftrace ...";
# exit 0 = PASS, 1 = FAIL, 77 = UNSUPPORTED (skipped, with a reason on
# stdout).  Each runs in its own scratch directory with $FTRAIL, $FTRAIL_LIB,
# $TOP and $BUILD set.  Results print as PASS/FAIL/SKIP lines; the last line
# is "N passed, N failed, N skipped".
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
JOBS=${JOBS:-$(nproc)}
WHAT=${1:-all}
PAT=${2:-}
pass=0 fail=0 skip=0
failed=()
LOG=$(mktemp -d /tmp/ftrail-tests.XXXXXX)

result() { # name status(0/1/77) logfile
	case $2 in
	0) pass=$((pass + 1)); echo "PASS: $1" ;;
	77) skip=$((skip + 1)); echo "SKIP: $1 ($(tail -n 1 "$3" 2>/dev/null))" ;;
	*) fail=$((fail + 1)); failed+=("$1"); echo "FAIL: $1 (log: $3)"; tail -n 20 "$3" | sed 's/^/    /' ;;
	esac
}

run_bin() { # label binary [args]
	local label=$1 log="$LOG/$(echo "$1" | tr '/ ' '__').log"
	shift
	timeout 600 "$@" >"$log" 2>&1
	result "$label" $? "$log"
}

build() { # SAN
	local log="$LOG/build-${1:-plain}.log"
	if ! make -j"$JOBS" SAN="$1" WERROR="${WERROR:-1}" all >"$log" 2>&1; then
		result "build ${1:-plain}" 1 "$log"
		return 1
	fi
	result "build ${1:-plain}" 0 "$log"
}

# The stack map's tests again with the baseline instruction set, as a CPU
# without AVX2 runs them (get_id chooses once per process).
isa_base() { # kind builddir name...
	local kind=$1 b=$2 t
	shift 2
	for t in "$@"; do
		[ -x "$b/tests/$kind/$t" ] &&
			run_bin "$kind $(basename "$b")/$t isa=base" env FTRAIL_TEST_ISA=base "$b/tests/$kind/$t"
	done
}

unit() { # builddir
	for t in "$1"/tests/unit/*; do
		[ -x "$t" ] && run_bin "unit $(basename "$1")/$(basename "$t")" "$t"
	done
	isa_base unit "$1" test_stackmap
}

stress() { # builddir
	for t in "$1"/tests/stress/*; do
		[ -x "$t" ] && run_bin "stress $(basename "$1")/$(basename "$t")" "$t"
	done
	isa_base stress "$1" stackmap_mixed stackmap_signal stackmap_threads
}

e2e() { # builddir [asan]
	local b=$1 mode=${2:-} t name log dir rc lib san
	for t in tests/e2e/t*.sh; do
		[ -e "$t" ] || continue
		name=$(basename "$t" .sh)
		[ -n "$PAT" ] && [[ $name != *$PAT* ]] && continue
		# the ASan pass: only cases that say "# asan: yes" (they use the tool
		# as a reader; programs they trace get the plain runtime, since an
		# ASan runtime cannot be preloaded into an uninstrumented program)
		[ "$mode" = asan ] && ! grep -q '^# asan: yes' "$t" && continue
		log="$LOG/e2e-$(basename "$b")-$name.log"
		dir=$(mktemp -d /tmp/ftrail-e2e.XXXXXX)
		lib="$TOP/$b/libftrail.so"
		san=
		if [ "$mode" = asan ]; then
			lib="$TOP/build/libftrail.so"
			san=$(mktemp -d /tmp/ftrail-asan.XXXXXX)
		fi
		(cd "$dir" && env TOP="$TOP" BUILD="$TOP/$b" FTRAIL="$TOP/$b/ftrail" FTRAIL_LIB="$lib" \
			${san:+ASAN_OPTIONS=log_path=$san/asan:detect_leaks=1} \
			${san:+UBSAN_OPTIONS=log_path=$san/ubsan:print_stacktrace=1} \
			${san:+LSAN_OPTIONS=suppressions=$TOP/tests/fuzz/lsan.supp:print_suppressions=0} \
			timeout 600 bash "$TOP/$t") >"$log" 2>&1
		rc=$?
		# a sanitizer report (error or leak) fails the case whatever it printed
		if [ -n "$san" ] && [ -n "$(ls -A "$san")" ]; then
			{ echo "sanitizer reports:"; cat "$san"/*; } >>"$log"
			rc=1
		fi
		result "e2e $(basename "$b")/$name" $rc "$log"
		rm -rf "$dir" ${san:+"$san"}
	done
}

lint() { # static checks of the tree (tests/lint/*.sh): layers, format, spelling
	for t in tests/lint/*.sh; do
		run_bin "lint $(basename "$t" .sh)" bash "$t"
	done
}

fuzz() {
	local log="$LOG/fuzz.log"
	if [ -x tests/fuzz/run.sh ]; then
		bash tests/fuzz/run.sh >"$log" 2>&1
		result "fuzz trace reader" $? "$log"
	fi
}

case $WHAT in
all)
	lint
	build "" && { unit build; stress build; e2e build; }
	build asan && { unit build-asan; stress build-asan; e2e build-asan asan; }
	build tsan && stress build-tsan
	fuzz
	;;
unit) build "" && unit build ;;
stress) build "" && stress build ;;
e2e) build "" && e2e build ;;
asan) build "" && build asan && { unit build-asan; stress build-asan; e2e build-asan asan; } ;;
e2e-asan) build "" && build asan && e2e build-asan asan ;;
tsan) build tsan && stress build-tsan ;;
fuzz) fuzz ;;
lint) lint ;;
*) echo "usage: tests/run.sh [all|lint|unit|stress|e2e [PAT]|e2e-asan [PAT]|asan|tsan|fuzz]" >&2; exit 2 ;;
esac

[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[@]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
