#!/bin/sh
# Install the Debian packages listed in scripts/deps.txt (needs root or sudo).
set -e
cd "$(dirname "$0")"
pkgs=$(grep -v '^#' deps.txt | tr '\n' ' ')
missing=
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
