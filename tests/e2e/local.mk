# tests/e2e: end-to-end shell tests run by the harness.
# one test a line, so that changes to the list merge; the longest first
# (the wall seconds of a CI run: scripts/check.sh prints the slowest), so
# that make -j's slots end on short ones, and before the unit tests
# (Makefile.am includes this file first), which are short
TESTS += \
  tests/e2e/report_fuzz.sh \
  tests/e2e/report_gpu_gaps.sh \
  tests/e2e/wheel.sh \
  tests/e2e/report_twins.sh \
  tests/e2e/report_jobs.sh \
  tests/e2e/report_windows.sh \
  tests/e2e/report_workloads.sh \
  tests/e2e/browser.sh \
  tests/e2e/hta_ledger.sh \
  tests/e2e/golden.sh \
  tests/e2e/tracer_python.sh \
  tests/e2e/record.sh \
  tests/e2e/import_fuzz.sh \
  tests/e2e/monitor.sh \
  tests/e2e/monitor_captures.sh \
  tests/e2e/tracer_stress.sh \
  tests/e2e/tracer_kill.sh \
  tests/e2e/tracer_limits.sh \
  tests/e2e/metrics.sh \
  tests/e2e/nccl_plugin.sh \
  tests/e2e/import_order_match.sh \
  tests/e2e/trace_variants.sh \
  tests/e2e/tracer_membound.sh \
  tests/e2e/report_cli.sh \
  tests/e2e/nccl_ce.sh \
  tests/e2e/nccl_comms.sh \
  tests/e2e/tracer_signals.sh \
  tests/e2e/cu_three_ways.sh \
  tests/e2e/import_jobs.sh \
  tests/e2e/report_inputs.sh \
  tests/e2e/report_hostile.sh \
  tests/e2e/report_huge_pages.sh \
  tests/e2e/tracer_cuda13.sh \
  tests/e2e/tracer.sh \
  tests/e2e/report_source_line.sh \
  tests/e2e/import_hta.sh \
  tests/e2e/tracer_files.sh \
  tests/e2e/crossrank.sh \
  tests/e2e/report_tmpfiles.sh \
  tests/e2e/report_html_steps.sh \
  tests/e2e/monitor_hangs.sh \
  tests/e2e/fork_busy.sh \
  tests/e2e/kineto_hta.sh \
  tests/e2e/quick_start.sh \
  tests/e2e/workloads.sh \
  tests/e2e/import_roundtrip.sh \
  tests/e2e/tracer_loading.sh \
  tests/e2e/kineto_roundtrip_golden.sh \
  tests/e2e/tracer_stall.sh \
  tests/e2e/ledger_traces.sh \
  tests/e2e/layers.sh \
  tests/e2e/report_join.sh \
  tests/e2e/report_hang.sh \
  tests/e2e/report_width.sh \
  tests/e2e/report_slowdown.sh \
  tests/e2e/report_stream_halves.sh \
  tests/e2e/report_gpu_numbers.sh \
  tests/e2e/report_open_ranges.sh \
  tests/e2e/report_html_page.sh \
  tests/e2e/tracer_unfinished.sh \
  tests/e2e/boot_id.sh \
  tests/e2e/tracer_nvtx.sh \
  tests/e2e/import_comm_kernels.sh \
  tests/e2e/chrome_async_ranges.sh \
  tests/e2e/tracer_thread_names.sh \
  tests/e2e/python_layouts.sh \
  tests/e2e/tracer_api.sh \
  tests/e2e/import_traces.sh \
  tests/e2e/report_single.sh \
  tests/e2e/report_join_static.sh \
  tests/e2e/report_join_late.sh \
  tests/e2e/tracer_exports.sh \
  tests/e2e/tracer_nosync.sh \
  tests/e2e/report_min_cost.sh \
  tests/e2e/readme_python.sh \
  tests/e2e/tracer_cupti_buffers.sh \
  tests/e2e/tracer_own_activity.sh \
  tests/e2e/install.sh \
  tests/e2e/tracer_real_toolkit.sh \
  tests/e2e/tracer_times.sh \
  tests/e2e/import_no_gpu.sh \
  tests/e2e/report_read_sync.sh \
  tests/e2e/tracer_own_closes.sh \
  tests/e2e/ledger_sum.sh \
  tests/e2e/import_output.sh \
  tests/e2e/block_formats.sh \
  tests/e2e/import_flow_skip.sh \
  tests/e2e/tracer_std_fds.sh \
  tests/e2e/import_kineto_args.sh \
  tests/e2e/export_rows.sh \
  tests/e2e/import_nsys_variants.sh \
  tests/e2e/cli_help.sh
EXTRA_DIST += \
  tests/e2e/hta_ledger.sh \
  tests/e2e/hta_ledger.py \
  tests/e2e/trace_variants.sh \
  tests/e2e/import_comm_kernels.sh \
  tests/e2e/import_order_match.sh \
  tests/e2e/import_comm_kernels.py \
  tests/e2e/import_order_match.py \
  tests/e2e/import_no_gpu.sh \
  tests/e2e/import_no_gpu.py \
  tests/e2e/import_kineto_args.py \
  tests/e2e/export_rows.py \
  tests/e2e/import_nsys_variants.py \
  tests/e2e/layers.sh \
  tests/e2e/report_tmpfiles.sh \
  tests/e2e/report_signals.py \
  tests/e2e/report_jobs.sh \
  tests/e2e/nccl_ce.sh \
  tests/e2e/boot_id.sh \
  tests/e2e/report_read_sync.sh \
  tests/e2e/report_join.sh \
  tests/e2e/report_join_static.sh \
  tests/e2e/report_join_late.sh \
  tests/e2e/crossrank.sh \
  tests/e2e/crossrank.py \
  tests/e2e/hold_lock.py \
  tests/e2e/nccl_plugin.sh \
  tests/e2e/workloads.sh \
  tests/e2e/tracer.sh \
  tests/e2e/tracer_stress.sh \
  tests/e2e/tracer_api.sh \
  tests/e2e/tracer_nvtx.sh \
  tests/e2e/tracer_times.sh \
  tests/e2e/tracer_python.sh \
  tests/e2e/python_layouts.sh \
  tests/e2e/tracer_real_toolkit.sh \
  tests/e2e/tracer_loading.sh \
  tests/e2e/tracer_cuda13.sh \
  tests/e2e/tracer_exports.sh \
  tests/e2e/tracer_own_closes.sh \
  tests/e2e/cu_three_ways.sh \
  tests/e2e/report_workloads.sh \
  tests/e2e/report_inputs.sh \
  tests/e2e/report_windows.sh \
  tests/e2e/report_fuzz.sh \
  tests/e2e/report_gpu_gaps.sh \
  tests/e2e/report_hostile.sh \
  tests/e2e/report_huge_pages.sh \
  tests/e2e/report_hang.sh \
  tests/e2e/report_width.sh \
  tests/e2e/report_slowdown.sh \
  tests/e2e/report_stream_halves.sh \
  tests/e2e/report_gpu_numbers.sh \
  tests/e2e/report_open_ranges.sh \
  tests/e2e/kineto_hta.sh \
  tests/e2e/report_workloads.py \
  tests/e2e/workload_spec.py \
  tests/e2e/tap.py \
  tests/e2e/report_twins.sh \
  tests/e2e/report_twins.py \
  tests/e2e/report_fuzz.py \
  tests/e2e/report_gpu_gaps.py \
  tests/e2e/testlib.sh \
  tests/e2e/monitorlib.sh \
  tests/e2e/kineto_hta.py \
  tests/e2e/hta_venv.sh \
  tests/e2e/browser.sh \
  tests/e2e/browser.py \
  tests/e2e/report_cli.sh \
  tests/e2e/report_html_steps.sh \
  tests/e2e/report_html_page.sh \
  tests/e2e/report_single.sh \
  tests/e2e/report_source_line.sh \
  tests/e2e/chrome_async_ranges.sh \
  tests/e2e/report_min_cost.sh \
  tests/e2e/cli_help.sh \
  tests/e2e/report_html_steps.py \
  tests/e2e/report_html_page.py \
  tests/e2e/ledger_sum.sh \
  tests/e2e/ledger_traces.sh \
  tests/e2e/ledger_sum.py \
  tests/e2e/ledger_traces.py \
  tests/e2e/import_jobs.sh \
  tests/e2e/import_jobs.py \
  tests/e2e/trace_rules.py \
  tests/e2e/kineto_roundtrip_golden.sh \
  tests/e2e/kineto_roundtrip_golden.py \
  tests/e2e/install.sh \
  tests/e2e/quick_start.sh \
  tests/e2e/readme_python.sh \
  tests/e2e/tracer_signals.sh \
  tests/e2e/monitor.sh \
  tests/e2e/monitor_captures.sh \
  tests/e2e/monitor_hangs.sh \
  tests/e2e/metrics.sh \
  tests/e2e/fork_busy.sh \
  tests/e2e/tracer_stall.sh \
  tests/e2e/tracer_membound.sh \
  tests/e2e/tracer_nosync.sh \
  tests/e2e/tracer_cupti_buffers.sh \
  tests/e2e/tracer_own_activity.sh \
  tests/e2e/tracer_unfinished.sh \
  tests/e2e/tracer_thread_names.sh \
  tests/e2e/record.sh \
  tests/e2e/import_output.sh \
  tests/e2e/block_formats.sh \
  tests/e2e/import_kineto_args.sh \
  tests/e2e/export_rows.sh \
  tests/e2e/import_nsys_variants.sh \
  tests/e2e/import_flow_skip.sh \
  tests/e2e/tracer_std_fds.sh \
  tests/e2e/tracer_kill.sh \
  tests/e2e/tracer_files.sh \
  tests/e2e/tracer_limits.sh \
  tests/e2e/nccl_comms.sh \
  tests/e2e/wheel.sh

# The report checks read timings of simulated runs; run them alone, after
# every other test, so that no other test competes for the CPUs meanwhile.
tests/e2e/report_workloads.log: $(filter-out tests/e2e/report_workloads.log tests/e2e/report_twins.log,$(TEST_LOGS))
# report_twins.sh measures wall times of simulated runs: alone too, last
tests/e2e/report_twins.log: $(filter-out tests/e2e/report_twins.log,$(TEST_LOGS))
# tracer_kill.sh measures times too (what killed ranks lose): alone as well,
# before them
tests/e2e/tracer_kill.log: $(filter-out tests/e2e/tracer_kill.log tests/e2e/report_workloads.log tests/e2e/report_twins.log,$(TEST_LOGS))
# crossrank.sh reads timings of simulated runs too (stragglers, bubbles):
# before those two, after the rest
tests/e2e/crossrank.log: $(filter-out tests/e2e/crossrank.log tests/e2e/tracer_kill.log tests/e2e/report_workloads.log tests/e2e/report_twins.log,$(TEST_LOGS))

# the virtual environment hta_venv.sh makes in the build tree (and its lock) when
# GPUTRACE_HTA_VENV does not point elsewhere; wheel.sh's downloads
clean-local:
	rm -rf hta-venv hta-venv.lock browser-venv wheel-cache

# the report's golden tests: recorded inputs and the report's exact outputs
# for them (tests/data/golden/README.md)
EXTRA_DIST += tests/e2e/golden.sh tests/data/golden
