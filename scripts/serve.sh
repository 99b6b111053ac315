#!/usr/bin/env bash
# Serves the built app (dist/) with its bundled examples on http://localhost:${PORT:-5173}.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-5173}"
echo "isoscope: serving on http://localhost:${PORT}/"
exec npx vite preview --config web/vite.config.ts --host 127.0.0.1 --port "$PORT" --strictPort
