# Real-viewer helpers for end-to-end cases (sourced after tests/e2e/lib.sh).
#
#   need_chromium              skip unless Debian's chromium is installed
#   headless OUTLOG ARGS...    run chromium headless, offline, in a fresh profile,
#                              with console messages logged to OUTLOG
#   console_errors LOG         print the page's console errors / uncaught
#                              exceptions found in a headless log (none: empty)
#   need_speedscope            install speedscope from npm into
#                              tests/viewer/node_modules (once) and set $SPEEDSCOPE
#                              to its bundled index.html; skip if npm is missing
#   speedscope_import FILE     load FILE into speedscope headless (the way its own
#                              command-line launcher does: a script that calls
#                              speedscope.loadFileFromBase64, named by
#                              #localProfilePath=); prints the page title, which
#                              is "<profile name> - speedscope" once the import
#                              worked, and fails on console errors
#   png_colours PNG            number of pixels of a PNG screenshot that are
#                              neither white nor grey (frames drawn), from a
#                              pure-python PNG decoder
VIEWER_DIR="$TOP/tests/viewer"

need_chromium() {
	CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
	[ -n "$CHROMIUM" ] || skip "needs chromium (Debian package chromium, see scripts/deps.txt)"
}

headless() { # log args...
	local log=$1 prof
	shift
	prof=$(mktemp -d "$PWD/chromium-profile.XXXXXX")
	# no network: the pages must be self-contained; a proxy that does not
	# exist makes any attempt fail instead of leaving the machine
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --enable-unsafe-swiftshader \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions \
		--proxy-server=127.0.0.1:9 --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 "$@" 2>"$log"
	local rc=$?
	rm -rf "$prof"
	return $rc
}

console_errors() { # log
	grep -E 'Uncaught|:ERROR:CONSOLE|CONSOLE.*[Ee]rror|SyntaxError|TypeError|ReferenceError|net::ERR' "$1" |
		grep -v -E 'Automatic fallback to software WebGL|GPU stall due to ReadPixels' || true
}

need_speedscope() {
	need_cmd npm
	SPEEDSCOPE="$VIEWER_DIR/node_modules/speedscope/dist/release/index.html"
	if [ ! -f "$SPEEDSCOPE" ]; then
		(cd "$VIEWER_DIR" && timeout 300 npm install --no-audit --no-fund --loglevel=error) \
			>npm.log 2>&1 || skip "npm install speedscope failed: $(tail -n 1 npm.log)"
	fi
	[ -f "$SPEEDSCOPE" ] || skip "speedscope's bundle not found after npm install"
}

speedscope_import() { # file
	local f=$1 js log dom
	js="$PWD/$(basename "$f").load.js"
	log="$PWD/$(basename "$f").chromium.log"
	dom="$PWD/$(basename "$f").dom"
	python3 - "$f" "$js" <<'PY' || return 1
import base64, json, os, sys
src, out = sys.argv[1], sys.argv[2]
data = base64.b64encode(open(src, "rb").read()).decode()
open(out, "w").write("speedscope.loadFileFromBase64(%s, %s)\n"
                     % (json.dumps(os.path.basename(src)), json.dumps(data)))
PY
	headless "$log" --virtual-time-budget=10000 --dump-dom \
		"file://$SPEEDSCOPE#localProfilePath=$js" >"$dom" || return 1
	if [ -n "$(console_errors "$log")" ]; then
		console_errors "$log" >&2
		return 1
	fi
	sed -n 's:.*<title>\([^<]*\)</title>.*:\1:p' "$dom" | head -n 1
}

png_colours() { # png
	python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, hdr = 8, b"", None
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif typ == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = hdr
assert depth == 8 and ctype in (2, 6) and not interlace, "unsupported PNG %r" % (hdr,)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
count, i = 0, 0
for y in range(h):
    f = raw[i]; i += 1
    line = bytearray(raw[i:i + stride]); i += stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        r, g, bl = line[x], line[x + 1], line[x + 2]
        if max(r, g, bl) - min(r, g, bl) > 80:   # saturated: a frame, not background or text
            count += 1
    prev = line
print(count)
PY
}
