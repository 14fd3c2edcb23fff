# tests/e2e: end-to-end shell tests run by the harness.
TESTS += tests/e2e/tracer_files.sh tests/e2e/tracer_limits.sh tests/e2e/workloads.sh tests/e2e/tracer.sh tests/e2e/tracer_stress.sh tests/e2e/tracer_api.sh tests/e2e/tracer_nvtx.sh tests/e2e/tracer_python.sh tests/e2e/tracer_real_toolkit.sh tests/e2e/report_workloads.sh tests/e2e/report_inputs.sh tests/e2e/report_windows.sh tests/e2e/report_fuzz.sh tests/e2e/kineto_hta.sh
EXTRA_DIST += tests/e2e/tracer_files.sh tests/e2e/tracer_limits.sh tests/e2e/workloads.sh tests/e2e/tracer.sh tests/e2e/tracer_stress.sh tests/e2e/tracer_api.sh tests/e2e/tracer_nvtx.sh tests/e2e/tracer_python.sh tests/e2e/tracer_real_toolkit.sh tests/e2e/report_workloads.sh tests/e2e/report_inputs.sh tests/e2e/report_windows.sh tests/e2e/report_workloads.py tests/e2e/report_fuzz.sh tests/e2e/report_fuzz.py tests/e2e/testlib.sh tests/e2e/kineto_hta.sh tests/e2e/kineto_hta.py

# The report checks read timings of simulated runs; run them alone, after
# every other test, so that no other test competes for the CPUs meanwhile.
tests/e2e/report_workloads.log: $(filter-out tests/e2e/report_workloads.log,$(TEST_LOGS))

# the virtual environment kineto_hta.sh makes in the build tree when
# GPUTRACE_HTA_VENV does not point elsewhere
clean-local:
	rm -rf hta-venv
