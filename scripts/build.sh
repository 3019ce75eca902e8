#!/usr/bin/env bash
# One-line entry to the optimized builds for people who do not use `cargo xtask`.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'TXT'
Usage: scripts/build.sh [--native] [--pgo] [--bolt] [--help]

  (no option)  cargo build --profile release-max   -> target/release-max/logicars
  --native     build for this machine's CPU (-C target-cpu=native; with --pgo: a native PGO build)
  --pgo        profile-guided build               -> target/optimized/logicars-pgo[-native]
  --bolt       BOLT post-link optimization        -> target/optimized/logicars-bolt
  --pgo --bolt both                               -> target/optimized/logicars-pgo-bolt

Needs LLVM 22 tools for --pgo and --bolt: run `cargo xtask doctor` to check,
`cargo xtask setup` to install them.
TXT
}

native=0 pgo=0 bolt=0
for arg in "$@"; do
  case "$arg" in
    --native) native=1 ;;
    --pgo) pgo=1 ;;
    --bolt) bolt=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scripts/build.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

if [ "$bolt" = 1 ]; then
  if [ "$native" = 1 ]; then echo "scripts/build.sh: --native is not combined with --bolt" >&2; exit 2; fi
  if [ "$pgo" = 1 ]; then exec cargo xtask bolt --with-pgo; else exec cargo xtask bolt; fi
elif [ "$pgo" = 1 ]; then
  if [ "$native" = 1 ]; then exec cargo xtask pgo --native; else exec cargo xtask pgo; fi
elif [ "$native" = 1 ]; then
  RUSTFLAGS="-C target-cpu=native" exec cargo build -p logicars-cli --profile release-max --target-dir target/native
else
  exec cargo build -p logicars-cli --profile release-max
fi
