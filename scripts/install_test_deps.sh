#!/usr/bin/env bash
# Everything the tests need on a fresh machine: Python packages, Debian's Chromium (browser tests),
# and local copies of what bertviz loads from its CDN (served to the browser by the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
# torch's CPU build first, as README's first command does (PyPI's Linux build pulls GB of CUDA packages)
python -m pip install -q --no-deps -r pre-requirements.txt
python -m pip install -q -r requirements-dev.txt
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && apt-get install -y -q chromium
  else
    echo "note: /usr/bin/chromium is missing; run 'sudo apt-get install chromium' for the browser tests" >&2
  fi
fi
# a real Redis for the test of two processes serving one class (tests/test_room_redis.py skips without it)
if ! command -v redis-server >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -q redis-server || (apt-get update -q && apt-get install -y -q redis-server) ||
      echo "note: redis-server could not be installed; tests/test_room_redis.py will be skipped" >&2
  else
    echo "note: redis-server is missing; run 'sudo apt-get install redis-server' for the two-process class test" >&2
  fi
fi
if command -v npm >/dev/null; then
  (cd tests/browser && npm install --no-audit --no-fund --loglevel=error)
else
  echo "note: npm is missing; the browser tests need it for bertviz's scripts" >&2
fi
