#!/usr/bin/env bash
# Runs `npm ci && npm test` in a fresh clone of this repository's HEAD, as a newcomer would.
#   --node 22|24   use that Node.js (from tools/runtimes, installed by npm install) instead of the machine's
#   --isolated     as on a machine with nothing else: no PostgreSQL on 5432, no system Chromium or Caddy
#                  (the tests then start embedded-postgres, use @sparticuz/chromium and a Node TLS proxy)
#   --only FILES   build and run only these test files (space-separated) instead of `npm test`
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
node_major=""
isolated=0
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --node) node_major="$2"; shift 2 ;;
    --isolated) isolated=1; shift ;;
    --only) only="$2"; shift 2 ;;
    *) echo "fresh-clone-test: unknown argument $1" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# As root, an embedded PostgreSQL runs as the postgres user, who must reach node_modules.
chmod 755 "$work"
git clone -q "$root" "$work/holdfast"
cd "$work/holdfast"

if [ -n "$node_major" ]; then
  runtime="$root/tools/runtimes/node_modules/node$node_major"
  if [ ! -x "$runtime/bin/node" ]; then
    echo "fresh-clone-test: no Node $node_major at $runtime; run npm install in $root first" >&2
    exit 1
  fi
  export PATH="$runtime/bin:$PATH"
  # Native modules (better-sqlite3) build against this Node's own headers, shipped in the same package.
  export npm_config_nodedir="$runtime"
fi
if [ "$isolated" = 1 ]; then
  unset TEST_DATABASE_URL CHROMIUM_PATH
  export HOLDFAST_TEST_LOCAL_PG=postgres://postgres@127.0.0.1:1/test
  export HOLDFAST_TEST_NO_SYSTEM_CHROMIUM=1
  export HOLDFAST_TEST_NO_SYSTEM_CADDY=1
fi

echo "fresh clone at $(git rev-parse --short HEAD) on Node $(node --version)$([ "$isolated" = 1 ] && echo ', isolated')"
started=$(date +%s)
npm ci --no-audit --no-fund
echo "install took $(( $(date +%s) - started )) s"
started=$(date +%s)
if [ -n "$only" ]; then
  npm run build
  # shellcheck disable=SC2086 # a list of paths
  npx vitest run $only
else
  npm test
fi
echo "tests took $(( $(date +%s) - started )) s"
