#!/usr/bin/env bash
# Installs what the host tests need on a fresh machine (as root, no stdin, CI=true)
# and does nothing slow when it is all already there.
# README.md beside this file says why; each odd step says why below.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="$HERE/.cache"
RG_CACHE="$CACHE/tmp/vscode-ripgrep-cache-1.15.11"
RG_TARBALL="$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
STAMP="$HERE/node_modules/.attest-setup-stamp"
SERVER_MAIN="$HERE/node_modules/code-server/lib/vscode/out/server-main.js"

log() { echo "[host-setup] $*" >&2; }

# --- Debian packages -------------------------------------------------------
# libkrb5-dev is only a build dependency of the `kerberos` native module that
# code-server's postinstall compiles; dpkg is the only way to see it is there.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
dpkg-query -W -f='${Status}' libkrb5-dev 2>/dev/null | grep -q 'install ok installed' || missing+=(libkrb5-dev)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    log "missing Debian packages: ${missing[*]}; run this script as root or install them"
    exit 1
  fi
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- ripgrep for @vscode/ripgrep -------------------------------------------
# Its postinstall would download ripgrep from GitHub (unreachable); it first
# looks in $TMPDIR/vscode-ripgrep-cache-<ver>/ for the tarball, so we put
# Debian's rg there.
if [ ! -s "$RG_TARBALL" ]; then
  mkdir -p "$RG_CACHE"
  tar czf "$RG_TARBALL.part" -C "$(dirname "$(command -v rg)")" rg
  mv "$RG_TARBALL.part" "$RG_TARBALL"
fi

# --- npm packages ----------------------------------------------------------
# Stale = the lockfile or Node's major version changed since the last good
# install (native modules are built against Node's headers).
want_stamp="$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1) node-$(node -p 'process.versions.modules')"
have_stamp="$(cat "$STAMP" 2>/dev/null || true)"
if [ "$want_stamp" != "$have_stamp" ] || [ ! -f "$SERVER_MAIN" ] || [ ! -d "$HERE/node_modules/playwright-core" ]; then
  log "npm ci in test/host (about a minute: code-server builds native modules)"
  (
    cd "$HERE"
    # code-server's postinstall refuses to run as root without unsafe_perm;
    # node-pty's postinstall runs `npx node-gyp`, which must not prompt.
    export npm_config_unsafe_perm=true npm_config_yes=true
    export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
    export TMPDIR="$CACHE/tmp"
    npm ci --no-audit --no-fund --loglevel=error
  )
  echo "$want_stamp" >"$STAMP"
fi
