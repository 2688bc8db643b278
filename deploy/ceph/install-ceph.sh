#!/usr/bin/env bash
# Installs the Ceph daemons the object-store tests start (EmbeddedCeph): one monitor, one memstore OSD, radosgw.
# Idempotent: does nothing when every binary is already present. Needs root (or sudo) and the Debian archive.
# If dpkg fails (this mirror sometimes answers "cannot access archive") the install is retried once.
set -euo pipefail

packages=(ceph-mon ceph-osd radosgw ceph-common)
binaries=(ceph-mon ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool)

missing=()
for b in "${binaries[@]}"; do
  command -v "$b" >/dev/null 2>&1 || missing+=("$b")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "[ceph] already installed: $(ceph --version 2>/dev/null | sed -n 1p)"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "[ceph] missing ${missing[*]} and not root (no sudo): cannot install ${packages[*]}" >&2; exit 1; }
  sudo=(sudo)
fi

echo "[ceph] missing ${missing[*]}: installing ${packages[*]}"
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"; then
  echo "[ceph] apt-get install failed once; retrying" >&2
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
fi
echo "[ceph] installed $(ceph --version | sed -n 1p) in $(( $(date +%s) - start )) s"
