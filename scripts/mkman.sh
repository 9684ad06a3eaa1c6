#!/bin/sh
# Man pages from the one source of truth, the --help texts: ftrail(1) from
# `ftrail help`, and ftrail-CMD(1) from `ftrail CMD --help` for every command
# `ftrail help` lists, through Debian's help2man.
#
#   scripts/mkman.sh FTRAIL OUTDIR
set -e
FTRAIL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
command -v help2man >/dev/null || { echo "mkman: help2man is not installed (scripts/deps.txt)" >&2; exit 1; }
mkdir -p "$OUT"
VERSION=$("$FTRAIL" version | sed 's/^ftrail //')
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cmds=$("$FTRAIL" help | sed -n 's/^  \([a-z]\{1,\}\)  .*/\1/p' | grep -v -x -e help -e version)
see=$(for c in $cmds; do printf '.BR ftrail\\-%s (1),\n' "$c"; done)

page() { # name summary command-that-prints-the-help
	name=$1 summary=$2
	printf '#!/bin/sh\nexec %s\n' "$3" >"$TMP/$name"
	chmod +x "$TMP/$name"
	if [ "$name" = ftrail ]; then
		printf '[SEE ALSO]\n%s\n' "$see" | sed '$s/,$//' >"$TMP/see"
	else
		printf '[SEE ALSO]\n.BR ftrail (1),\n%s\n' "$see" | sed '$s/,$//' >"$TMP/see"
	fi
	help2man -N --no-info --help-option=--help --version-string="$name $VERSION" \
		--name="$summary" --section=1 --include="$TMP/see" "$TMP/$name" >"$OUT/$name.1"
}

page ftrail "ftrace's design for any Linux program, with kernel events in the same trace" \
	"'$FTRAIL' help"
for c in $cmds; do
	summary=$("$FTRAIL" help | sed -n "s/^  $c  *//p")
	page "ftrail-$c" "$summary" "'$FTRAIL' $c --help"
done
