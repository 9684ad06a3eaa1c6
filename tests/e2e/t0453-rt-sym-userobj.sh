# description: sym-userobj: library calls and user stack frames name their object in show, stacks, flame, report, export and pprof
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# show -O sym-userobj: every function of the graph is followed by the file
# name of its object, a library call by its library's (not the PLT of the
# object that calls it), and user stack frames print as ftrace prints them
# with sym-userobj: /path/of/object[+0xoffset], the offset from the
# object's load base.  report --object and export's "object" arg carry
# the same names.
graph() {
	"$FTRAIL" show -i "$1" -O nofuncgraph-duration -O nofuncgraph-cpu "${@:2}" >show.out \
		2>show.err || fail "show $1: $(cat show.err)"
	sed -n '/^ *main/,$p' show.out | grep -v '^ */\*' | sed 's/^ *//' | tr '\n' ' ' | sed 's/ $//'
}
n=0
for flags in "-pg" "-pg -mfentry" "-fpatchable-function-entry=5"; do
	# shellcheck disable=SC2086
	build lc gcc -O2 $flags "$P/libcall.c" -lpthread || continue
	rec t.dat -- ./lc s
	got=$(graph t.dat -O sym-userobj)
	want='main [lc]() { work [lc]() { malloc [libc.so.6](); qsort [libc.so.6]() { cmp [lc](); cmp [lc](); cmp [lc](); } printf [libc.so.6](); free [libc.so.6](); } }'
	[ "$got" = "$want" ] || fail "$flags: got
$got
expected
$want"
	# off by default: the names alone
	got=$(graph t.dat)
	case $got in *'['*) fail "$flags: objects named without sym-userobj: $got" ;; esac
	# the function tracer: callee and parent both name theirs
	rec f.dat -p function -l malloc -- ./lc s
	"$FTRAIL" show -i f.dat -O sym-userobj >show.out 2>show.err || fail "show -p function: $(cat show.err)"
	grep -q ' malloc \[libc.so.6\] <-work \[lc\]$' show.out ||
		fail "$flags function tracer: $(grep malloc show.out)"
	# user stacks: every frame as object[+0xoffset]; the caller's frame
	# (a return address inside work) at an offset nm places inside work
	rec s.dat -O userstacktrace -l malloc -- ./lc s
	"$FTRAIL" show -i s.dat -O expand-stacks -O sym-userobj >show.out 2>show.err ||
		fail "show stacks: $(cat show.err)"
	frames=$(grep '^ => ' show.out)
	[ -n "$frames" ] || fail "$flags: no stack: $(head -n 20 show.out)"
	bad=$(echo "$frames" | grep -v '^ => /[^ ]*\[+0x[0-9a-f]*\]$' || true)
	[ -z "$bad" ] || fail "$flags: frames not as object[+0xoff]: $bad"
	echo "$frames" | grep -q '/libc\.so\.6\[+0x' || fail "$flags: no libc frame: $frames"
	read -r wstart wsize < <(nm -S lc | awk '$4 == "work" { print $1, $2 }')
	[ -n "$wstart" ] || fail "$flags: nm finds no work"
	inwork=0
	for off in $(echo "$frames" | sed -n "s|^ => $PWD/lc\[+0x\([0-9a-f]*\)\]$|\1|p"); do
		[ $((0x$off > 0x$wstart && 0x$off < 0x$wstart + 0x$wsize)) = 1 ] && inwork=1
	done
	[ $inwork = 1 ] || fail "$flags: no frame inside work (0x$wstart+0x$wsize): $frames"
	# stacks --sym-userobj: the same frames
	"$FTRAIL" stacks -i s.dat --sym-userobj >stacks.out 2>stacks.err ||
		fail "stacks: $(cat stacks.err)"
	sframes=$(grep '^    ' stacks.out)
	[ -n "$sframes" ] || fail "$flags stacks: $(cat stacks.out)"
	bad=$(echo "$sframes" | grep -v '^    /[^ ]*\[+0x[0-9a-f]*\]$' || true)
	[ -z "$bad" ] || fail "$flags stacks: frames not as object[+0xoff]: $bad"
	for f in $(echo "$frames" | sed 's/^ => //'); do
		grep -qxF "    $f" stacks.out || fail "$flags stacks: no frame $f"
	done
	# without the option: names, as before
	"$FTRAIL" show -i s.dat -O expand-stacks >show.out 2>show.err || fail "show: $(cat show.err)"
	grep -q '^ => work$' show.out || fail "$flags: no named frame without sym-userobj"
	# report: an Object column, and a sort by it
	"$FTRAIL" report -i t.dat --object >report.out 2>report.err || fail "report: $(cat report.err)"
	grep -q '^ .*  libc\.so\.6  *qsort$' report.out || fail "$flags report: $(cat report.out)"
	grep -q '^ .*  lc  *cmp$' report.out || fail "$flags report: $(cat report.out)"
	"$FTRAIL" report -i t.dat -s object >report.out 2>report.err || fail "report -s object: $(cat report.err)"
	objs=$(awk 'NR > 2 { print $(NF-1) }' report.out | uniq | tr '\n' ' ')
	case $objs in "lc libc.so.6 "|"libc.so.6 lc ") ;; *) fail "$flags report -s object: grouped as '$objs'" ;; esac
	# flame --graph: a library call's frame names its library, the program's do not
	"$FTRAIL" flame -i t.dat --sym-userobj -F folded -o folded.out 2>flame.err ||
		fail "flame: $(cat flame.err)"
	grep -q '^main;work;qsort \[libc\.so\.6\];cmp [0-9]*$' folded.out ||
		fail "$flags flame: $(cat folded.out)"
	"$FTRAIL" flame -i t.dat -F folded -o folded.out 2>flame.err || fail "flame: $(cat flame.err)"
	grep -q '^main;work;qsort;cmp [0-9]*$' folded.out || fail "$flags flame plain: $(cat folded.out)"
	# flame --stacks: show's frames
	"$FTRAIL" flame -i s.dat --stacks --sym-userobj -F folded -o folded.out 2>flame.err ||
		fail "flame --stacks: $(cat flame.err)"
	for f in $(echo "$frames" | sed 's/^ => //'); do
		grep -qF "$f" folded.out || fail "$flags flame --stacks: no frame $f"
	done
	# export: a library call's entry names its library
	"$FTRAIL" export -i t.dat --format chrome -o t.json 2>exp.err || fail "export: $(cat exp.err)"
	grep -q '"name":"qsort","args":{"object":"libc.so.6"}' t.json ||
		fail "$flags export: $(grep -o '"name":"qsort"[^}]*}' t.json | head -n 2)"
	grep -q '"name":"cmp"}' t.json || fail "$flags export: cmp has args"
	# pprof: a library call's location is in its library's mapping
	if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
		"$FTRAIL" export -i t.dat --format pprof -o t.pb.gz 2>exp.err || fail "pprof: $(cat exp.err)"
		HOME=$PWD PPROF_BINARY_PATH=/nonexistent go tool pprof -raw t.pb.gz >raw.out 2>&1 ||
			fail "go tool pprof: $(tail -n 3 raw.out)"
		mlibc=$(sed -n 's|^\([0-9]*\): .*/libc\.so\.6 .*|\1|p' raw.out | head -n 1)
		mlc=$(sed -n "s|^\\([0-9]*\\): .* $PWD/lc .*|\\1|p" raw.out | head -n 1)
		[ -n "$mlibc" ] && [ -n "$mlc" ] || fail "$flags pprof mappings: $(cat raw.out)"
		grep -q " M=$mlibc qsort " raw.out || fail "$flags pprof: qsort not in libc: $(grep qsort raw.out)"
		grep -q " M=$mlc cmp " raw.out || fail "$flags pprof: cmp not in lc: $(grep cmp raw.out)"
	fi
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n of the instrumentations built"
# a library's own calls name the library they go to, the library its own
build liblc.so gcc -O2 -shared -fPIC -pg -mfentry "$P/lc_lib.c" || fail "build lib"
build dlm gcc -O2 -pg -mfentry "$P/dl_main.c" -ldl || fail "build dlm"
rec t.dat -g lib_entry -- ./dlm -c ./liblc.so
got=$("$FTRAIL" show -i t.dat -O nofuncgraph-duration -O nofuncgraph-cpu -O sym-userobj 2>&1 |
	grep -v '^#\|/\*' | sed 's/^ *//' | tr '\n' ' ' | sed 's/ $//')
want='lib_entry [liblc.so]() { malloc [libc.so.6](); free [libc.so.6](); }'
[ "$got" = "$want" ] || fail "dlopen: got '$got', expected '$want'"
# a misspelt option: one line, non-zero
if "$FTRAIL" show -i t.dat -O sym-userobject >show.out 2>show.err; then
	fail "show -O sym-userobject succeeded"
fi
[ "$(wc -l <show.err)" = 1 ] || fail "bad option: $(cat show.err)"
exit 0
