#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/ctest-timeline against a ctest console log and a test list written here: the
timeline it rebuilds, the label sums, and its replay at other -j values with a fixture."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "ctest-timeline")

# A -j2 run: "long" (10 s) and the fixture's setup (1 s) start together; "user" needs the
# fixture and starts when the setup ends; "short" takes the slot "user" frees at 4 s; the
# cleanup runs last. Build output before "Test project" is not part of the run.
LOG = """[1/2] Building CXX object a.o
Test project /tmp/build
      Start 1: long
      Start 2: setup
 1/5 Test #2: setup ............................   Passed    1.00 sec
      Start 3: user
 2/5 Test #3: user .............................   Passed    3.00 sec
      Start 4: short # GetParam() = 1
 3/5 Test #4: short # GetParam() = 1 ...........***Failed    2.00 sec
      Start 5: cleanup
 4/5 Test #5: cleanup ..........................   Passed    0.50 sec
 5/5 Test #1: long .............................   Passed   10.00 sec
"""


def test(name, cost=0, labels=(), required=(), setup=(), cleanup=()):
    props = [{"name": "COST", "value": cost}, {"name": "LABELS", "value": list(labels)}]
    for key, value in (("FIXTURES_REQUIRED", required), ("FIXTURES_SETUP", setup),
                       ("FIXTURES_CLEANUP", cleanup)):
        if value:
            props.append({"name": key, "value": list(value)})
    return {"name": name, "properties": props}


TESTS = {"tests": [
    test("long", 50, ["integration"]),
    test("setup", 100, ["kafka"], setup=["broker"]),
    test("user", 90, ["kafka"], required=["broker"]),
    test("short # GetParam() = 1", 1, ["unit"]),
    test("cleanup", 100, ["kafka"], cleanup=["broker"]),
]}


def check(cond, what, out):
    if not cond:
        raise AssertionError(f"{what}\n--- output:\n{out}")


def main():
    with tempfile.TemporaryDirectory() as d:
        log, tests = os.path.join(d, "log"), os.path.join(d, "tests.json")
        with open(log, "w", encoding="utf-8") as f:
            f.write(LOG)
        with open(tests, "w", encoding="utf-8") as f:
            json.dump(TESTS, f)
        r = subprocess.run([sys.executable, SCRIPT, log, "--tests", tests, "--jobs", "1", "2", "5"],
                           capture_output=True, text=True)
        out = r.stdout
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}", out)
        check("5 tests, wall 10.0 s, summed test time 16.5 s" in out, "wall and sum", out)
        check("kafka                 4.5 s  (3 tests)" in out, "kafka's sum", out)
        check("unit                  2.0 s  (1 tests)" in out, "a failed test still counts", out)
        check("running every 10 s: 2 0\n" in out, "concurrency profile", out)
        # One slot: everything in a row. Two: "long" holds one slot; setup, user, short and the
        # cleanup share the other (6.5 s), so "long" ends the run. Five: the fixture still
        # orders setup, user and cleanup (4.5 s), "long" is the longest.
        check("replayed at -j1: 16.5 s" in out, "-j1 is the sum", out)
        check("replayed at -j2: 10.0 s" in out, "-j2", out)
        check("replayed at -j5: 10.0 s" in out, "-j5", out)
        # The fixture's cleanup waits for its user even with free slots: replayed alone with
        # "long" shortened, the order setup -> user -> cleanup sets the wall time.
        with open(log, "w", encoding="utf-8") as f:
            f.write(LOG.replace("10.00 sec", "0.10 sec"))
        out = subprocess.run([sys.executable, SCRIPT, log, "--tests", tests, "--jobs", "5"],
                             capture_output=True, text=True, check=True).stdout
        check("replayed at -j5: 4.5 s" in out, "the fixture's order", out)
        r = subprocess.run([sys.executable, SCRIPT, os.devnull], capture_output=True, text=True)
        check(r.returncode != 0 and "no ctest output" in r.stderr, "an empty log is refused",
              r.stderr)
    print("ctest-timeline: all checks passed")


if __name__ == "__main__":
    main()
