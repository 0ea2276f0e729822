#!/usr/bin/env bash
# Install everything the test suite needs, then run all of it (unit, AppTest, real browser).
# This is the README's test command, and exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

# requirements.txt names PyTorch's CPU index; where it cannot be reached (offline mirrors, this project's CI machines)
# pip would otherwise retry it with growing pauses for every package (minutes). One retry keeps real networks safe.
export PIP_RETRIES="${PIP_RETRIES:-1}"

echo "== installing Python packages (requirements-test.txt)"
"$PY" -m pip install --quiet --disable-pip-version-check -r requirements-test.txt

echo "== making sure a Chromium is there for the browser tests"
if [ -x /usr/bin/chromium ]; then
  echo "Debian chromium found at /usr/bin/chromium"
elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  # Debian/Ubuntu as root (CI, containers): the distribution's Chromium, with CJK and emoji fonts for Korean tokens.
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null
else
  # Anywhere else (macOS, a non-root Linux user): Playwright's own Chromium build.
  "$PY" -m playwright install chromium
fi

echo "== linting the JavaScript: in-page components and the bench's page scripts (ESLint, pinned in package-lock.json)"
if ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nodejs npm >/dev/null
fi
npm ci --no-audit --no-fund --loglevel=error
npx --no-install eslint mha bench

echo "== linting the CSS: every stylesheet (Stylelint, stylelint-config-recommended, stylelint.config.js)"
npx --no-install stylelint "**/*.css"

echo "== linting Python (ruff, .ruff.toml)"
"$PY" -m ruff check .

echo "== checking the layers of mha/ (import-linter, contracts in .importlinter)"
# lint-imports, through the interpreter that installed it (its script may not be on PATH)
"$PY" -c "from importlinter.cli import lint_imports_command; lint_imports_command()" --no-cache

echo "== making sure nginx is there for the replicas test (tests/deploy)"
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  echo "nginx found"
elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  # Debian's nginx (deploy/run_local.sh runs it on loopback; its service is not started here)
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nginx >/dev/null
else
  echo "nginx not found: tests/deploy will skip (Debian: apt-get install nginx)"
fi

echo "== running the test suite"
exec "$PY" -m pytest "$@"
