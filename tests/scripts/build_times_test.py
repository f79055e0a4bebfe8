#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/build-times against logs written here: which build is the last one, how steps are
grouped by module and kind, and the CPU log of scripts/compile-timer."""
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "build-times")


def entry(began_s, start_ms, end_ms, output, cmd_hash):
    mtime_ns = int((began_s + end_ms / 1000.0) * 1e9)  # the output is written as the step ends
    return f"{start_ms}\t{end_ms}\t{mtime_ns}\t{output}\t{cmd_hash}\n"


def run(build, *args):
    r = subprocess.run([sys.executable, SCRIPT, build, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"build-times {args} failed: {r.stderr}")
    return r.stdout


def check(cond, what, out):
    if not cond:
        raise AssertionError(f"{what}\n--- output:\n{out}")


def main():
    old, new = 1_790_000_000, 1_790_003_600  # two builds an hour apart
    lines = [
        # The older build: a slow object that a newer build did not rebuild must not count.
        entry(old, 0, 30000, "src/api/CMakeFiles/snowcar_api.dir/old.cpp.o", "h1"),
        # The last build.
        entry(new, 0, 4000, "src/api/CMakeFiles/snowcar_api.dir/cmake_pch.hxx.gch", "p1"),
        entry(new, 0, 4000, "src/api/CMakeFiles/snowcar_api.dir/cmake_pch.hxx.cxx.o", "p1"),
        entry(new, 4000, 13000, "src/api/CMakeFiles/snowcar_api.dir/client.cpp.o", "h2"),
        entry(new, 4000, 6000, "src/api/CMakeFiles/snowcar_api.dir/readiness.cpp.o", "h3"),
        entry(new, 6000, 7500, "state/CMakeFiles/snowcar_state.dir/dir_lock.cpp.o", "h4"),
        entry(new, 13000, 13500, "src/api/libsnowcar_api.a", "h5"),
        entry(new, 7500, 10500, "src/CMakeFiles/snowcar_cli.dir/cli/cmd_run.cpp.o", "h6"),
        entry(new, 10500, 15500,
              "tests/unit/api/CMakeFiles/api_router_test.dir/Unity/unity_0_cxx.cxx.o", "h7"),
        entry(new, 15500, 15800, "tests/unit/api/api_router_test", "h8"),
    ]
    # Compaction rewrites the log in no particular order.
    random.Random(7).shuffle(lines)
    with tempfile.TemporaryDirectory() as build:
        with open(os.path.join(build, ".ninja_log"), "w", encoding="utf-8") as f:
            f.write("# ninja log v5\n" + "".join(lines))
        out = run(build, "5")
        check("old.cpp" not in out, "a step of an older build was counted", out)
        slowest = out.split("\n\n")[0].splitlines()[1:]
        check(slowest[0].split() == ["9.0", "src/api/client.cpp.o"], "client.cpp is slowest", out)
        check(len(slowest) == 5, "five objects listed", out)
        modules = {l.split()[0]: l.split()[1:] for l in out.split("\n\n")[1].splitlines()[2:]}
        check(modules["src/api"][:2] == ["2", "11.0"], "src/api: two objects, 11 s", out)
        check(modules["src/cli"][:2] == ["1", "3.0"], "cmd_run.cpp belongs to src/cli", out)
        check(modules["tests/unit"][:2] == ["1", "5.0"], "the unity file is tests/unit", out)
        check(modules["state"][:2] == ["1", "1.5"], "state", out)
        totals = {l.split()[0]: l.split()[1:] for l in out.split("\n\n")[2].splitlines()[1:]}
        check(totals["pch"][0] == "1" and totals["pch"][2] == "4.0",
              "the header's edge, two outputs, counted once", out)
        check(totals["link"][0] == "1" and totals["archive"][0] == "1", "link and archive", out)

        with open(os.path.join(build, ".compile_cpu_log"), "w", encoding="utf-8") as f:
            f.write("7.500\tsrc/api/CMakeFiles/snowcar_api.dir/client.cpp.o\n"
                    "2.000\tsrc/api/CMakeFiles/snowcar_api.dir/client.cpp.o\n"  # rebuilt later
                    "3.250\tsrc/sink/CMakeFiles/snowcar_sink.dir/lane.cpp.o\n")
        out = run(build, "3", "--cpu")
        slowest = out.split("\n\n")[0].splitlines()[1:]
        check([l.split() for l in slowest] ==
              [["3.2", "src/sink/lane.cpp.o"], ["2.0", "src/api/client.cpp.o"]],
              "the CPU log's latest record of each object", out)
    print("build-times: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
