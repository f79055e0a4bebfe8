#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the monitoring pieces in k8s/monitoring/.

usage: check_monitoring.py REPO_ROOT            check
       check_monitoring.py REPO_ROOT --update   rewrite prometheusrule.yaml from the rules file

- snowcar-alerts.rules.yml passes `promtool check rules`, and `promtool test rules` with
  tests/k8s/snowcar-alerts.test.yml, where each alert fires on the series it is about and
  stays quiet on a healthy neighbour;
- prometheusrule.yaml is a PrometheusRule whose spec is exactly the rules file (one source,
  two packagings; --update regenerates it) and passes `promtool check rules` too;
- every alert has a severity, a summary and a description, has a promtool test, and is
  explained in docs/operations.md;
- grafana-dashboard.json is a dashboard whose panels all query Prometheus.

Whether every metric these files name exists is checked against a running sidecar by
tests/integration/sidecar/monitoring_metrics_test.cpp. promtool comes from Debian's
`prometheus` package (scripts/install-deps); a missing promtool fails the test.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
    return condition


HEADER = """\
# The alerting rules of snowcar-alerts.rules.yml as a PrometheusRule, for clusters that run
# the Prometheus operator (kubectl apply -n <namespace> -f k8s/monitoring/prometheusrule.yaml).
# Give it the labels your Prometheus's ruleSelector asks for (`release: prometheus` is the
# kube-prometheus-stack default). Do not edit the rules here: edit snowcar-alerts.rules.yml
# and run `tests/k8s/check_monitoring.py . --update` (the test compares the two).
"""


def prometheus_rule(rules):
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "snowcar",
                     "labels": {"app.kubernetes.io/name": "snowcar-app",
                                "release": "prometheus"}},
        "spec": rules,
    }


class Dumper(yaml.SafeDumper):
    pass


def _str(dumper, data):
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


Dumper.add_representer(str, _str)


def promtool(*args):
    binary = shutil.which("promtool")
    if binary is None:
        sys.exit("FAIL: promtool not found on PATH; scripts/install-deps installs it "
                 "(Debian package prometheus)")
    result = subprocess.run([binary, *args], capture_output=True, text=True, timeout=120)
    check(result.returncode == 0,
          f"promtool {' '.join(args)} exited {result.returncode}:\n{result.stdout}{result.stderr}")


def main():
    repo = sys.argv[1]
    mon = os.path.join(repo, "k8s", "monitoring")
    rules_path = os.path.join(mon, "snowcar-alerts.rules.yml")
    rule_crd_path = os.path.join(mon, "prometheusrule.yaml")
    with open(rules_path) as f:
        rules = yaml.safe_load(f)

    if len(sys.argv) > 2 and sys.argv[2] == "--update":
        with open(rule_crd_path, "w") as f:
            f.write(HEADER)
            yaml.dump(prometheus_rule(rules), f, Dumper=Dumper, sort_keys=False, width=100)
        print(f"wrote {rule_crd_path}")
        return

    # The rules file: promtool's own checks and the unit tests of every alert.
    promtool("check", "rules", rules_path)
    test_file = os.path.join(repo, "tests", "k8s", "snowcar-alerts.test.yml")
    # promtool resolves rule_files relative to the test file.
    promtool("test", "rules", test_file)

    alerts = [r for g in rules["groups"] for r in g["rules"] if "alert" in r]
    names = [a["alert"] for a in alerts]
    check(len(names) == len(set(names)), f"alert names repeat: {names}")
    with open(test_file) as f:
        tested = {t["alertname"] for case in yaml.safe_load(f)["tests"]
                  for t in case.get("alert_rule_test", [])}
    with open(os.path.join(repo, "docs", "operations.md")) as f:
        operations = f.read()
    for a in alerts:
        name = a["alert"]
        check(a.get("labels", {}).get("severity") in ("warning", "critical"),
              f"{name}: severity label must be warning or critical")
        for key in ("summary", "description"):
            check(a.get("annotations", {}).get(key), f"{name}: no {key} annotation")
        check(name in tested, f"{name}: no promtool test in {test_file}")
        check(f"`{name}`" in operations, f"{name}: not explained in docs/operations.md")

    # The PrometheusRule: the same groups, and valid on its own.
    with open(rule_crd_path) as f:
        crd = yaml.safe_load(f)
    check(crd.get("apiVersion") == "monitoring.coreos.com/v1" and crd.get("kind") == "PrometheusRule",
          "prometheusrule.yaml is not a monitoring.coreos.com/v1 PrometheusRule")
    check(crd.get("spec") == rules,
          "prometheusrule.yaml's spec differs from snowcar-alerts.rules.yml; run "
          "tests/k8s/check_monitoring.py . --update")
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as tmp:
        yaml.safe_dump(crd.get("spec") or {}, tmp)
    try:
        promtool("check", "rules", tmp.name)
    finally:
        os.unlink(tmp.name)

    # The dashboard: JSON that Grafana imports, every panel a Prometheus query.
    with open(os.path.join(mon, "grafana-dashboard.json")) as f:
        dash = json.load(f)
    check(dash.get("uid") and dash.get("title"), "dashboard has no uid or title")
    variables = {v["name"] for v in dash.get("templating", {}).get("list", [])}
    check("datasource" in variables, "dashboard has no datasource variable")
    ids = set()
    queries = 0
    for p in dash.get("panels", []):
        check(p["id"] not in ids, f"panel id {p['id']} repeats")
        ids.add(p["id"])
        pos = p.get("gridPos", {})
        check(pos.get("x", 0) + pos.get("w", 0) <= 24, f"panel {p.get('title')} is wider than the grid")
        if p.get("type") == "row":
            continue
        check(p.get("datasource", {}).get("uid") == "${datasource}",
              f"panel {p.get('title')} does not use the datasource variable")
        check(p.get("description"), f"panel {p.get('title')} has no description")
        targets = p.get("targets", [])
        check(targets and all(t.get("expr") for t in targets),
              f"panel {p.get('title')} has no query")
        queries += len(targets)
    check(queries >= 25, f"the dashboard has only {queries} queries")

    if FAILURES:
        for f in FAILURES:
            print("FAIL:", f)
        sys.exit(1)
    print(f"ok: {len(alerts)} alerts checked and tested, PrometheusRule in step, "
          f"dashboard with {queries} queries")


if __name__ == "__main__":
    main()
