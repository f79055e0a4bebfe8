#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Packaging checks: the Dockerfile's runtime packages, and the install rules.

usage: check_packaging.py dockerfile SNOWCAR_BINARY REPO_ROOT
       check_packaging.py install BUILD_DIR [REPO_ROOT]

dockerfile: k8s/Dockerfile cannot be built here (no network, no container engine), so the
  test guards what can drift: the runtime stage installs exactly the runtime set of
  scripts/install-deps, and that set holds the package of every library the built binary
  links against (as the Debian package database says), so the image would start.
install: `cmake --install` into a temporary prefix, again with DESTDIR under a prefix, and
  (given REPO_ROOT) `make install DESTDIR=... PREFIX=...`, each landing the binary (which
  runs), the guides and the example configuration.
"""

import os
import re
import subprocess
import sys
import tempfile

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
    return condition


def runtime_set(repo):
    out = subprocess.run(["bash", os.path.join(repo, "scripts/install-deps"), "--runtime-list"],
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        sys.exit(f"FAIL: install-deps --runtime-list exited {out.returncode}: {out.stderr}")
    return [line for line in out.stdout.split() if line]


def dockerfile_runtime_packages(path):
    """Packages of the `apt-get install` in the last stage (the runtime image)."""
    with open(path) as f:
        text = f.read()
    stages = re.split(r"^FROM\s", text, flags=re.M)
    check(len(stages) >= 3, "Dockerfile is not multi-stage (expected a build and a runtime "
          "stage)")
    last = stages[-1]
    check(last.startswith("debian:12-slim"), "runtime stage is not FROM debian:12-slim")
    joined = re.sub(r"\\\n", " ", last)  # continuation lines
    installs = re.findall(r"apt-get install ([^&\n]*)", joined)
    check(len(installs) == 1, f"runtime stage has {len(installs)} apt-get install commands, "
          "expected one")
    packages = [w for w in " ".join(installs).split() if not w.startswith("-")]
    return packages, last


def linked_packages(binary):
    """Debian packages owning the libraries named in the binary's NEEDED entries."""
    needed = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True,
                            timeout=30).stdout
    names = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", needed)
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True, timeout=30).stdout
    paths = dict(re.findall(r"^\s*(\S+) => (/\S+)", ldd, re.M))
    owners = {}
    for name in names:
        if name not in paths:
            check(False, f"ldd did not resolve {name}")
            continue
        real = os.path.realpath(paths[name])
        found = None
        # Debian 12 is usrmerged: a library may be registered under /lib instead of /usr/lib.
        for candidate in (real, real.replace("/usr/lib/", "/lib/", 1)):
            out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True,
                                 timeout=30)
            if out.returncode == 0:
                found = out.stdout.split(":")[0]
                break
        owners[name] = found
    return owners


# Libraries every Debian image has (libc6, libgcc-s1 are essential); not worth listing.
ESSENTIAL = {"libc6", "libgcc-s1"}

# Sanitizer runtimes: a `make test-asan`/`test-tsan` build links them, an image never holds
# such a build, so they are not part of the runtime set.
SANITIZER_RUNTIME = re.compile(r"^lib(asan|ubsan|tsan|lsan)\.so")


def check_dockerfile(binary, repo):
    runtime = runtime_set(repo)
    check(len(runtime) >= 5, f"runtime set looks empty: {runtime}")
    packages, stage = dockerfile_runtime_packages(os.path.join(repo, "k8s/Dockerfile"))
    check(sorted(packages) == sorted(runtime),
          "k8s/Dockerfile runtime packages differ from scripts/runtime-packages.txt:\n"
          f"    only in Dockerfile: {sorted(set(packages) - set(runtime))}\n"
          f"    only in runtime set: {sorted(set(runtime) - set(packages))}")
    check(len(packages) == len(set(packages)), "Dockerfile lists a package twice")
    check(re.search(r"^USER\s+(?!0\b|root\b)\S+", stage, re.M) is not None,
          "runtime stage does not switch to a non-root USER")
    check(re.search(r"^ENTRYPOINT\s+\[\"[^\"]*snowcar\"\]", stage, re.M) is not None,
          "runtime stage ENTRYPOINT is not the snowcar binary")
    for lib, package in linked_packages(binary).items():
        if SANITIZER_RUNTIME.match(lib):
            continue
        if package is None:
            continue  # glibc's loader paths on some layouts; the essential set covers them
        check(package in runtime or package in ESSENTIAL,
              f"the binary links {lib} from package {package}, which is not in the runtime set")


def check_install(build, repo=None):
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        out = subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                             capture_output=True, text=True, timeout=120)
        if not check(out.returncode == 0, f"cmake --install failed:\n{out.stdout}{out.stderr}"):
            return
        expect_layout(prefix, "--prefix")

        # A distro packager's staging: DESTDIR plus an absolute prefix.
        stage = os.path.join(tmp, "stage")
        env = dict(os.environ, DESTDIR=stage)
        out = subprocess.run(["cmake", "--install", build, "--prefix", "/usr"],
                             capture_output=True, text=True, timeout=120, env=env)
        if not check(out.returncode == 0,
                     f"DESTDIR install failed:\n{out.stdout}{out.stderr}"):
            return
        expect_layout(os.path.join(stage, "usr"), "DESTDIR")

        # `make install` passes PREFIX and DESTDIR through. -o keeps make from rebuilding or
        # reconfiguring this build directory (the test runs after the build anyway).
        if repo is not None:
            staged = os.path.join(tmp, "make")
            out = subprocess.run(["make", "-s", "-C", repo, "-o", "build", "-o", "configure",
                                  "-o", "deps", "install", f"BUILD={build}",
                                  f"DESTDIR={staged}", "PREFIX=/opt/snowcar"],
                                 capture_output=True, text=True, timeout=120)
            if check(out.returncode == 0, f"make install failed:\n{out.stdout}{out.stderr}"):
                expect_layout(os.path.join(staged, "opt", "snowcar"), "make install")


def expect_layout(root, how):
    binary = os.path.join(root, "bin", "snowcar")
    if check(os.access(binary, os.X_OK), f"{how}: {binary} missing or not executable"):
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        check(out.returncode == 0 and "snowcar" in out.stdout + out.stderr,
              f"{how}: installed binary does not run: {out.stdout}{out.stderr}")
    doc = os.path.join(root, "share", "doc", "snowcar")
    for rel in ("README.md", "docs/README.md", "docs/configuration.md", "docs/operations.md",
                "docs/packaging.md", "docs/examples/source-and-sink.properties",
                "LICENSE", "CHANGELOG.md"):
        check(os.path.isfile(os.path.join(doc, rel)), f"{how}: {doc}/{rel} not installed")
    # The repository's README, not the docs index of the same name.
    readme = os.path.join(doc, "README.md")
    if os.path.isfile(readme):
        with open(readme) as f:
            check(f.readline().strip() == "# snowcar", f"{how}: {readme} is not the README")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "dockerfile":
        check_dockerfile(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "install":
        check_install(sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None)
    else:
        sys.exit(__doc__)
    if FAILURES:
        print("FAIL:\n  " + "\n  ".join(FAILURES))
        return 1
    print(f"packaging ({sys.argv[1]}): every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
