# tests/e2e: end-to-end shell tests run by the harness.
TESTS += tests/e2e/workloads.sh tests/e2e/tracer.sh tests/e2e/tracer_stress.sh tests/e2e/tracer_api.sh
EXTRA_DIST += tests/e2e/workloads.sh tests/e2e/tracer.sh tests/e2e/tracer_stress.sh tests/e2e/tracer_api.sh
