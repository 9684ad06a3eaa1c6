#!/usr/bin/env bash
# Layers: a file may include only its own folder and the folders below it.
#
#   core/                      shared by everything (the runtime builds a subset)
#   runtime/                   injected into the traced program:   core
#   kernel/                    kernel capture:                     core
#   recorder/                  drives the capture engines:         core, kernel
#   analysis/                  readers, analyses, outputs:         core, third_party
#   third_party/               published schemas (profile.proto...), compiled at
#                              build time into $(BUILD)/gen/third_party/
#   live/                      a running recording seen live (the
#                              tracefs-like mount, streaming):     core, kernel,
#                                                                  recorder, analysis
#   cmd/                       one file per subcommand:            everything
#
# Every project include names its folder ("core/stackmap.h"); a bare
# "stackmap.h" is refused too, so the layer shows at every include.
# Prints each violation as FILE:LINE: message and exits 1 if there is one.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"

allowed() { # folder -> the folders its files may include
	case $1 in
	core) echo "core" ;;
	runtime) echo "core runtime" ;;
	kernel) echo "core kernel" ;;
	recorder) echo "core kernel recorder" ;;
	analysis) echo "core analysis third_party" ;;
	live) echo "core kernel recorder analysis third_party live" ;;
	cmd) echo "core runtime kernel recorder analysis live cmd" ;;
	esac
}

bad=0
for layer in core runtime kernel recorder analysis live cmd; do
	[ -d "$layer" ] || continue
	ok=" $(allowed $layer) "
	while IFS= read -r hit; do
		file=${hit%%:*}
		rest=${hit#*:}
		line=${rest%%:*}
		inc=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' <<<"${rest#*:}")
		[ -n "$inc" ] || continue
		top=${inc%%/*}
		if [ "$top" = "$inc" ]; then
			echo "$file:$line: include \"$inc\" does not name its folder"
			bad=1
		elif [[ $ok != *" $top "* ]]; then
			echo "$file:$line: $layer/ must not include $inc (a higher layer)"
			bad=1
		fi
	done < <(grep -rn --include='*.[chS]' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$layer")
done
exit $bad
