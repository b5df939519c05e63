# Sourced by the other scripts (and by instructors: `source scripts/setup.sh`): make .venv if missing,
# install requirements if they changed, put .venv/bin first on PATH.
# Idempotent: a second run installs nothing. It leaves the caller's directory and shell options as they were.
_course_setup() {
    local repo python want
    repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" || return 1
    python="${PYTHON:-python3}"
    if [ ! -x "$repo/.venv/bin/python" ]; then
        echo "setup: creating .venv with $($python --version)"
        "$python" -m venv "$repo/.venv" || return 1
    fi
    want="$(cat "$repo/requirements.txt" "$repo/pyproject.toml" | sha256sum | cut -d' ' -f1)"
    if [ "$(cat "$repo/.venv/.installed" 2>/dev/null)" != "$want" ]; then
        echo "setup: installing requirements (the first time takes a few minutes: torch is large)"
        (cd "$repo" && .venv/bin/python -m pip install --disable-pip-version-check -q -r requirements.txt) || return 1
        echo "$want" > "$repo/.venv/.installed"
    fi
    case ":$PATH:" in  # nbgrader runs `alembic`; jupyter finds the kernel here
        *":$repo/.venv/bin:"*) ;;
        *) export PATH="$repo/.venv/bin:$PATH" ;;
    esac
    COURSE_REPO="$repo"
}
_course_setup
