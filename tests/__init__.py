"""The kit's tests: a package, so that tests import their helpers as `tests.helpers...` (see tests/helpers)."""
