# description: program signal handlers shown as ftrace shows interrupts: arrows, levels, nesting, SA_SIGINFO, oldact, SIG_IGN/SIG_DFL, siglongjmp, threads
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# lines FILE [show opts]: show's lines without the header, with the
# durations blanked (they vary) and the task column dropped
lines() {
	local f=$1
	shift
	"$FTRAIL" show -i "$f" -O nofuncgraph-proc "$@" >show.out 2>show.err ||
		fail "show $f: $(cat show.err)"
	grep -v '^#' show.out | grep -v '__monstartup\|__cxa_atexit' |
		sed 's/^\( *[0-9]*)\) [ +!#*@$]*[0-9.]* us *|/\1               |/'
}
# graph FILE: one token per line: "L:text" with L the level column
graph() {
	lines "$1" | sed -n 's/^ *\([0-9]*\)) *\(==========>\|<==========\)\? *| *\(.*\)$/\1:\2\3/p' |
		sed 's/ *$//' | tr '\n' ';'
}
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build sg gcc -O2 $flags "$P/sig_graph.c" -lpthread || fail "build $flags"
	# a handler interrupting a traced call, and one nested in it (level 2);
	# a SA_NODEFER handler interrupted by its own signal
	rec t.dat -- ./sg n
	grep -qx ok rec.out || fail "$flags n: $(cat rec.out rec.err)"
	usr='0:==========>/* SIGUSR1 */;1:on_usr1() {;1:inner();;1:raise() {;1:==========>/* SIGUSR2 */;2:on_usr2() {;2:inner();;2:};1:<==========/* SIGUSR2 */;1:};1:};0:<==========/* SIGUSR1 */;'
	hup='0:==========>/* SIGHUP */;1:on_self() {;1:inner();;1:raise() {;1:==========>/* SIGHUP */;2:on_self() {;2:inner();;2:};1:<==========/* SIGHUP */;1:};1:};0:<==========/* SIGHUP */;'
	want="0:main() {;0:signal();;0:signal();;0:nest() {;0:raise() {;${usr}0:};0:};0:sigaction();;0:self_nest() {;0:raise() {;${hup}0:};0:};0:puts();;0:};0:/* sched_process_exit: status=0 */;"
	expect_shape "$flags nested" "$(graph t.dat)" "$want"
	# the exact layout of the arrows: print_graph_irq's, in the duration column
	lines t.dat | grep -qx ' 0)   ==========> |  /\* SIGUSR1 \*/' ||
		fail "$flags: no irq arrow line: $(cat show.out)"
	lines t.dat | grep -qx ' 1)   <========== |  /\* SIGUSR2 \*/' ||
		fail "$flags: no return arrow at level 1: $(cat show.out)"
	# latency format: the 'h' flag from level 1 on
	lines t.dat -O latency-format | grep -q '^ 2)  \.\.h\.\. |.*on_usr2() {' ||
		fail "$flags latency-format: $(cat show.out)"
	lines t.dat -O latency-format | grep -q '^ 0)  \.\.\.\.\. |.*nest() {' ||
		fail "$flags latency-format level 0: $(cat show.out)"
	# SA_SIGINFO: the handler gets its siginfo (sigqueue's value) and context
	rec t.dat -- ./sg i
	grep -qx ok rec.out || fail "$flags i: $(cat rec.out rec.err)"
	expect_shape "$flags siginfo" "$(graph t.dat)" \
		"0:main() {;0:sigaction();;0:info() {;0:getpid();;0:sigqueue() {;0:==========>/* SIGUSR1 */;1:on_info() {;1:inner();;1:};0:<==========/* SIGUSR1 */;0:};0:};0:puts();;0:};0:/* sched_process_exit: status=0 */;"
	# the program's view of its actions: oldact, signal(), SA_RESETHAND,
	# SIG_IGN and SIG_DFL as the kernel has them (checked by the program)
	rec t.dat -- ./sg a
	grep -qx ok rec.out || fail "$flags a: $(cat rec.out rec.err)"
	# the only delivery (SA_RESETHAND) is the one shown
	[ "$(lines t.dat | grep -c '==========>')" = 1 ] || fail "$flags a: $(cat show.out)"
	# siglongjmp out of the handler: its frames close inside the arrows,
	# the interrupted raise() after them
	rec t.dat -- ./sg j
	grep -qx ok rec.out || fail "$flags j: $(cat rec.out rec.err)"
	one='0:jump() {;0:raise() {;0:==========>/* SIGUSR1 */;1:on_jump() {;1:inner();;1:siglongjmp() {;1:} /* siglongjmp (unwound) */;1:} /* on_jump (unwound) */;0:<==========/* SIGUSR1 (siglongjmp) */;0:} /* raise (unwound) */;0:};'
	expect_shape "$flags siglongjmp" "$(graph t.dat)" \
		"0:main() {;0:signal();;${one}${one}0:puts();;0:};0:/* sched_process_exit: status=0 */;"
	# several threads: each one's handler in its own stream, at level 1
	rec t.dat -- ./sg t
	grep -qx ok rec.out || fail "$flags t: $(cat rec.out rec.err)"
	[ "$(lines t.dat | grep -c '^ 0)   ==========> |  /\* SIGUSR1 \*/')" = 2 ] ||
		fail "$flags threads: $(cat show.out)"
	[ "$(lines t.dat | grep -c '^ 1) .*on_usr2() {')" = 2 ] || fail "$flags threads: $(cat show.out)"
	[ "$(lines t.dat | grep -c '^ 0)   <========== |  /\* SIGUSR1 \*/')" = 2 ] ||
		fail "$flags threads: $(cat show.out)"
done
expect_built 3
exit 0
