#!/usr/bin/env bash
# Runs the test suite against the OLDEST and the NEWEST versions pyproject.toml allows.
#
# Usage: tools/test_versions.sh [oldest|newest|both] [pytest args...]
#   oldest  a venv pinned to every lower bound in pyproject.toml (numpy, onnx, onnxruntime,
#           onnx-ir, click, scikit-learn, skl2onnx, hypothesis, pytest, mpmath, pytest-cov,
#           coverage, pytest-xdist, dask)
#   newest  a venv with the newest releases the bounds allow (pip's normal resolution)
# Environment: PYTHON (default python3.11, the oldest Python pyproject.toml allows),
#              VENV_DIR (default .venvs/ in the repository root).
# Exit status: non-zero if the suite fails in any of the venvs.
#
# Keep OLDEST in step with pyproject.toml: when a lower bound rises there, raise it here.
# Why the floors are where they are (measured with this script, Nov 2026):
#   onnx 1.23: pyonnx emits opset 26 (BitCast for np.signbit/np.copysign/np.modf), which
#     onnx < 1.21 cannot check; the reference evaluator the tests use as a second runtime gives
#     wrong shapes/values in 1.21-1.22 (empty Squeeze/TopK/Gather, Gather in a Loop body).
#   numpy 2.4.2: pyonnx follows it; 2.0 differs in np.clip (no-bound/min=/max= forms,
#     out-of-range Python ints: 2.1), norm of empty arrays, take casting, quantile and more;
#     2.3 still returns NaN for np.quantile at q=0/1 on a slice whose end is -inf/+inf.
#     2.4.0-2.4.1 give np.quantile a float64 result for a float32 q (2.4.2: float32).
#   onnxruntime 1.32: 1.31.1's int64 Max/Min/Clip are wrong on 27-40 of the cases tried per op
#     (measured against numpy, Nov 2026); 1.32.0 gets them right.
set -euo pipefail
cd "$(dirname "$0")/.."
WHICH="${1:-both}"; shift || true
PYTHON="${PYTHON:-python3.11}"
VENV_DIR="${VENV_DIR:-.venvs}"
OLDEST=(
  "numpy==2.4.2" "onnx==1.23.0" "onnxruntime==1.32.0" "onnx-ir==1.1.0" "click==8.1.0"
  "scikit-learn==1.6.0" "skl2onnx==1.20.0" "hypothesis==6.100.0" "pytest==8.0.0"
  "mpmath==1.3.0" "pytest-cov==5.0.0" "coverage==7.5.0" "pytest-xdist==3.5.0" "dask==2024.1.0"
)

run() {  # run NAME PIP_ARGS...
  local name="$1"; shift
  local venv="$VENV_DIR/$name"
  echo "== $name: creating $venv"
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q "$@" -e ".[test]"
  "$venv/bin/python" -m pip list 2>/dev/null | grep -iE \
    '^(numpy|onnx|onnxruntime|onnx-ir|click|scikit-learn|skl2onnx|hypothesis|pytest|mpmath|pytest-cov|coverage|pytest-xdist|dask) '
  echo "== $name: running the suite"
  # -p no:cacheprovider: the venvs share the worktree; HYPOTHESIS_PROFILE=ci: reproducible.
  HYPOTHESIS_PROFILE=ci "$venv/bin/python" -m pytest -p no:cacheprovider "${PYTEST_ARGS[@]}"
}

PYTEST_ARGS=("$@")
status=0
if [[ "$WHICH" == oldest || "$WHICH" == both ]]; then
  # Constraints, not requirements: every package the project needs at its lower bound.
  constraints="$(mktemp)"; printf '%s\n' "${OLDEST[@]}" > "$constraints"
  run oldest -c "$constraints" "${OLDEST[@]}" || status=1
  rm -f "$constraints"
fi
if [[ "$WHICH" == newest || "$WHICH" == both ]]; then
  run newest --upgrade || status=1
fi
exit $status
