# tests/e2e: end-to-end shell tests run by the harness.
TESTS += tests/e2e/workloads.sh
EXTRA_DIST += tests/e2e/workloads.sh
