# Sourced by the other scripts: make .venv if missing, install requirements if they changed.
# Idempotent: a second run installs nothing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
fi
want="$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ "$(cat .venv/.installed 2>/dev/null || true)" != "$want" ]; then
    echo "setup: installing requirements (the first time takes a few minutes: torch is large)"
    .venv/bin/python -m pip install --disable-pip-version-check -q -r requirements.txt
    echo "$want" > .venv/.installed
fi
export PATH="$PWD/.venv/bin:$PATH"   # nbgrader runs `alembic`; jupyter finds the kernel here
export MPLBACKEND="${MPLBACKEND:-Agg}"
