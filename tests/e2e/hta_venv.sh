# hta_venv.sh: sourced by the tests that run Holistic Trace Analysis
# (kineto_hta.sh, import_hta.sh) after setting b: sets venv to a virtual
# environment with HTA at the pinned version, installed from the Python
# package index once and reused.  Under a lock, since the harness may start
# both tests at once and two pip installs into one folder break it.
HTA_VERSION=0.5.0
venv=${GPUTRACE_HTA_VENV:-$b/hta-venv}
(
  flock 9
  if ! "$venv/bin/python" -c "import hta, sys; sys.exit(hta.__version__ != '$HTA_VERSION')" 2>/dev/null; then
    echo "# installing holistictraceanalysis==$HTA_VERSION into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "holistictraceanalysis==$HTA_VERSION"
  fi
) 9> "$venv.lock"
