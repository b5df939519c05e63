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
    if ! command -v bwrap >/dev/null 2>&1; then  # the OS sandbox of grading kernels (docs/sandbox.md)
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "setup: installing bubblewrap (the grading sandbox)"
            (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; }) \
                || echo "setup: could not install bubblewrap; grading runs without the OS sandbox and says so"
        else
            echo "setup: bubblewrap is not installed; grading runs without the OS sandbox (sudo apt-get install bubblewrap)"
        fi
    fi
    COURSE_REPO="$repo"
}
_course_setup
