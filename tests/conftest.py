"""Test-session settings shared by every test module."""

import os

import pytest
from hypothesis import HealthCheck, settings

# Every model converted by the tests also checks pyonnx's fast serializer against onnx-ir's
# serde byte for byte (pyonnx/passes/pipeline.py reads this at import).
os.environ.setdefault("PYONNX_VERIFY_SERIALIZER", "1")

# Hypothesis profiles. Conversions take milliseconds to seconds, so no deadline.
# - default: a quick local run (tests that set max_examples themselves keep theirs).
# - ci (HYPOTHESIS_PROFILE=ci): more examples for the property tests, derandomized so every
#   machine runs the same examples and a red run is reproducible; no example database.
_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("default", max_examples=30, **_COMMON)
settings.register_profile("ci", max_examples=120, derandomize=True, database=None,
                          print_blob=True, **_COMMON)
# - mutants (tools/mutants.py): few examples, derandomized, so every mutant meets the same ones.
settings.register_profile("mutants", max_examples=25, derandomize=True, database=None,
                          **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config):
    """The coverage floor holds for the whole suite only: a run of some test files (a developer's
    targeted run, tools/mutants.py) covers less by design, so it reports nothing and never fails
    on coverage."""
    cov = config.pluginmanager.getplugin("_cov")
    if cov is not None and config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        cov.options.cov_fail_under = None
