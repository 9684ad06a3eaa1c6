# description: --format (-F) chooses the output of flame, stacks, stackmap, offcpu and export; the old spellings (--folded, --html, --json, --samples, export -f) give the same bytes with one deprecation line; unknown and conflicting formats fail
# requires: cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
mktrace graph graph.dat
. "$TOP/tests/e2e/lib_recorded.sh"
record_stacks

# same CMD...: the new spelling (first, up to '--old') and the old one
# print the same bytes; the new one says nothing on stderr, the old one
# exactly one line, the deprecation warning naming the new spelling.
same() {
	local what=$1 new=() old=() seen=0
	shift
	for a in "$@"; do
		if [ "$a" = --old ]; then seen=1; continue; fi
		if [ $seen = 0 ]; then new+=("$a"); else old+=("$a"); fi
	done
	$FTRAIL "${new[@]}" >new.out 2>new.err || fail "$what: ${new[*]}: $(cat new.err)"
	[ -s new.err ] && fail "$what: ${new[*]}: unexpected stderr: $(cat new.err)"
	$FTRAIL "${old[@]}" >old.out 2>old.err || fail "$what: ${old[*]}: $(cat old.err)"
	[ "$(wc -l <old.err)" = 1 ] || fail "$what: ${old[*]}: expected one stderr line: $(cat old.err)"
	grep -q '^ftrail: warning: .* is deprecated, use ' old.err || fail "$what: no deprecation: $(cat old.err)"
	[ -s new.out ] || fail "$what: ${new[*]}: no output"
	cmp -s new.out old.out || fail "$what: '${new[*]}' and '${old[*]}' differ"
}

same "flame folded" flame -i graph.dat --format folded --old flame -i graph.dat --folded
same "flame -F folded" flame -i graph.dat -F folded --old flame -i graph.dat --folded
same "flame stacks folded" flame --stacks -i t.dat --format folded --old flame --stacks -i t.dat --folded
same "flame html" flame -i graph.dat --format html --title T --old flame -i graph.dat --html --title T
same "stacks folded" stacks -i t.dat -F folded --old stacks -i t.dat --folded
same "stackmap show json" stackmap show -i t.dat --format json --old stackmap show -i t.dat --json
same "stackmap dump json" stackmap dump "$TOP/tests/data/fsmb/kernel-le.bin" -F json \
	--old stackmap dump "$TOP/tests/data/fsmb/kernel-le.bin" --json
same "export chrome" export -F chrome -i graph.dat -o - --old export -f chrome -i graph.dat -o -

# what each format is
$FTRAIL flame -i graph.dat --format folded | grep -qx 'main;foo;bar 1382' || fail "folded lines"
$FTRAIL flame -i graph.dat --format svg | grep -q '^<svg' || fail "svg"
$FTRAIL flame -i graph.dat -o g.html || fail "html by name"
grep -qi '<!doctype html' g.html || fail "-o X.html is not HTML"
# an explicit format wins over the output's name
$FTRAIL flame -i graph.dat --format svg -o s.html || fail "svg to .html"
grep -qi '<!doctype html' s.html && fail "--format svg -o s.html wrote HTML"
grep -q '<svg' s.html || fail "--format svg -o s.html is not an SVG"
$FTRAIL stacks -i t.dat --format text >text.out || fail "stacks text"
$FTRAIL stacks -i t.dat >default.out || fail "stacks default"
cmp -s text.out default.out || fail "stacks: --format text is not the default"
grep -q ' unique stacks, ' text.out || fail "stacks text: $(cat text.out)"
$FTRAIL stackmap show -i t.dat --format text >smt.out || fail "stackmap show text"
$FTRAIL stackmap show -i t.dat >smd.out || fail "stackmap show default"
cmp -s smt.out smd.out || fail "stackmap: --format text is not the default"

# bad input: one line on stderr, non-zero exit
expect_fail "ftrail: flame: unknown format 'png' (svg, html or folded)" $FTRAIL flame -i graph.dat --format png
expect_fail "ftrail: stacks: unknown format 'json' (text or folded)" $FTRAIL stacks -i t.dat -F json
expect_fail "ftrail: offcpu: unknown format 'svg' (text, folded or samples)" $FTRAIL offcpu -i t.dat --format svg
expect_fail "ftrail: stackmap: unknown format 'folded' (text or json)" $FTRAIL stackmap show -i t.dat --format folded
expect_fail "ftrail: flame: two output formats, svg and folded: give one --format" \
	$FTRAIL flame -i graph.dat --format svg -F folded
expect_fail "ftrail: offcpu: two output formats, folded and samples: give one --format" \
	$FTRAIL offcpu -i t.dat --format folded --format samples
expect_fail "ftrail: flame: option '--format' needs an argument" $FTRAIL flame -i graph.dat --format
expect_fail "ftrail: stackmap stat: --format*" $FTRAIL stackmap stat -i t.dat --format text
expect_fail "ftrail: stackmap export: --format does not apply*" $FTRAIL stackmap export -i t.dat -o m.bin -F json
# the same format twice is one choice
$FTRAIL stacks -i t.dat -F folded --format folded >twice.out 2>twice.err || fail "same format twice"
[ -s twice.err ] && fail "same format twice: $(cat twice.err)"
exit 0
