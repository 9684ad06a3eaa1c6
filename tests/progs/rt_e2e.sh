# Helpers for the runtime's end-to-end cases (tests/e2e/t04xx, t05xx):
#   . "$TOP/tests/progs/rt_e2e.sh"   (after lib.sh)
#
# build OUT CC FLAGS... SRC   compile a program of tests/progs; returns 1
#                             (and the caller may skip) only when CC is not
#                             installed or rejects one of the flags; any
#                             other compile error fails the test
# build_rtrun                 ./rtrun, the stand-alone session driver
#                             (tests/progs/rtrun.c), linked against core
# expect_built N              fail unless at least N builds succeeded, so a
#                             loop that skips builds cannot pass vacuously
# GRAPH_FLAGS                 every instrumentation the runtime hooks, one
#                             set of compiler flags per element
# graph_matrix MIN FN         FN CC OPT FLAGS for gcc and clang (those
#                             installed), -O0 and -O2 and each GRAPH_FLAGS;
#                             FN returns non-zero when CC rejects FLAGS
#                             (build's 1).  Fails unless at least MIN
#                             combinations ran
# PATCH_VARIANTS              the live-patching cases' instrumentations, one
#                             "CC FLAGS..." per element
# patch_flags FLAGS           sets libflags and mainflags: what a shared
#                             library and the program built with FLAGS need
# rec FILE [record opts] -- PROG ARGS   ftrail record -q into FILE, fails the test on error
# shape FILE [show opts]      the function_graph shape: one token per line of
#                             `ftrail show`'s FUNCTION column, comments
#                             dropped, joined by spaces: "main() { a(); }"
# main_shape FILE [show opts]  shape from main() on: without what the startup
#                             code calls before main (-pg's __monstartup...)
# task_shape FILE 1|0         shape of the task (thread or process) that
#                             wrote first, or of all the others: tasks
#                             interleave in time, each one's graph is exact
# LIBCALL_FLAGS               the instrumentations of the library-call cases
# link_flags lazy|now         the linker flags of lazy binding, or of
#                             -z now (full RELRO, no PLT resolution at run time)
# libcall_matrix FN           FN FLAGS LD WHAT for each of LIBCALL_FLAGS,
#                             linked lazily and with -z now (LD: link_flags;
#                             WHAT: "FLAGS lazy|now", for messages)
# funcs FILE                  the function tracer's "callee <-caller" pairs
# calls FILE NAME             the Calls column of `ftrail report` for NAME
P="$TOP/tests/progs"

BUILT=0

build() {
	local out=$1 cc=$2
	shift 2
	command -v "$cc" >/dev/null 2>&1 || return 1
	if ! "$cc" "$@" -o "$out" 2>build.err; then
		grep -qiE "unrecognized|unknown argument|unsupported option|not supported" build.err &&
			return 1
		fail "build $out with $cc $*: $(head -n 3 build.err)"
	fi
	BUILT=$((BUILT + 1))
}

build_rtrun() {
	cc -O2 -D_GNU_SOURCE -I"$TOP" -o rtrun "$P/rtrun.c" "$BUILD/libftrail-core.a" \
		$(pkg-config --libs libelf libdw libzstd) -liberty -lpthread 2>build.err ||
		fail "build rtrun: $(head -n 5 build.err)"
}

expect_built() {
	[ "$BUILT" -ge "$1" ] || fail "only $BUILT builds succeeded, expected at least $1"
}

GRAPH_FLAGS=("-pg" "-pg -mfentry" "-pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie"
	"-fpatchable-function-entry=5" "-fpatchable-function-entry=7,2" "-finstrument-functions")

graph_matrix() {
	local min=$1 fn=$2 cc opt flags n=0
	for cc in gcc clang; do
		command -v $cc >/dev/null 2>&1 || continue
		for opt in -O0 -O2; do
			for flags in "${GRAPH_FLAGS[@]}"; do
				"$fn" $cc $opt "$flags" && n=$((n + 1))
			done
		done
	done
	[ $n -ge "$min" ] || fail "only $n compiler/flag combinations built"
	echo "$n combinations"
}

PATCH_VARIANTS=("gcc -fpatchable-function-entry=5" "clang -fpatchable-function-entry=5"
	"gcc -pg -mfentry -mnop-mcount -mrecord-mcount")

# gcc refuses -mnop-mcount with -fPIC: such libraries are built without
# PIC (text relocations), and the program without PIE
patch_flags() {
	libflags="-shared -fPIC"
	mainflags=
	case $1 in
	*-mnop-mcount*)
		libflags="-shared -fno-pic -Wl,-Bsymbolic"
		mainflags="-fno-pie -no-pie"
		;;
	esac
}

rec() {
	local f=$1
	shift
	"$FTRAIL" record -q -o "$f" "$@" >rec.out 2>rec.err || fail "record $*: $(cat rec.err)"
}

shape() {
	local f=$1
	shift
	"$FTRAIL" show -i "$f" "$@" >show.out 2>show.err || fail "show $f: $(cat show.err)"
	grep -v '^#' show.out | sed -n 's/^[^|]*|  *//p' | grep -v '^/\*' | sed 's| */\*.*\*/||' |
		tr '\n' ' ' | sed 's/ *$//'
}

main_shape() {
	local s
	s=$(shape "$@")
	echo "main() {${s#*main() \{}"
}

task_shape() {
	"$FTRAIL" show -i "$1" -O funcgraph-proc -O nofuncgraph-duration >show.out 2>show.err ||
		fail "show $1: $(cat show.err)"
	awk -F'|' -v want="$2" '/^ *[0-9]+\) / && NF > 1 {
		split($1, a, " "); if (m == "") m = a[2]
		if ((a[2] == m) != want) next
		f = $2; sub(/^ +/, "", f); sub(/ *\/\*.*\*\/ *$/, "", f)
		if (f != "") printf "%s ", f }' show.out | sed 's/ $//'
}

LIBCALL_FLAGS=("-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions")

link_flags() {
	[ "$1" = now ] && echo "-Wl,-z,relro,-z,now"
	return 0
}

libcall_matrix() {
	local flags link
	for flags in "${LIBCALL_FLAGS[@]}"; do
		for link in lazy now; do
			"$1" "$flags" "$(link_flags $link)" "$flags $link"
		done
	done
}

funcs() {
	"$FTRAIL" show -i "$1" >show.out 2>show.err || fail "show $1: $(cat show.err)"
	sed -n 's/.*: \([A-Za-z_0-9]*\) <-\([^ ]*\).*/\1 <-\2/p' show.out | tr '\n' ';'
}

calls() {
	"$FTRAIL" report -i "$1" >report.out 2>report.err || fail "report $1: $(cat report.err)"
	awk -v n="$2" '$NF == n { print $(NF-1); found=1 } END { if (!found) print 0 }' report.out |
		head -n 1
}

# expect_shape WHAT GOT WANT
expect_shape() {
	[ "$2" = "$3" ] || fail "$1: shape '$2', expected '$3'"
}
