#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Renders the kustomize base and the example overlay and checks the objects.

usage: check_manifests.py SNOWCAR_BINARY REPO_ROOT

What a broken manifest would do to a user, each checked here: the sidecar not being a native
sidecar, no POD_NAME for static group membership, the application and snowcar looking at
different socket paths, state on a volume that does not survive rescheduling, probes calling a subcommand the binary does not have,
a container allowed to run as root or write its root filesystem, no resources, secrets in
the ConfigMap instead of mounted files, and configuration keys snowcar would refuse at start.

kubectl must be installed: a missing kubectl fails the test instead of skipping it, so CI
notices. Rendering is offline (kustomize reads only the local files). Set $KUBECTL to use a
kubectl other than the one on PATH.
"""

import os
import re
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


def render(repo, directory):
    # $KUBECTL picks another kubectl, e.g. Debian 12's 1.20 unpacked somewhere, to check the
    # manifests still render with the older kustomize.
    kubectl = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if kubectl is None:
        sys.exit("FAIL: kubectl not found on PATH; scripts/install-deps installs it "
                 "(Debian package kubernetes-client)")
    path = os.path.join(repo, directory)
    result = subprocess.run([kubectl, "kustomize", path], capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        sys.exit(f"FAIL: kubectl kustomize {directory} exited {result.returncode}:\n"
                 f"{result.stderr}")
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def parse_properties(text):
    """The subset of Java .properties the manifests use: key=value lines, # and ! comments."""
    props = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        key, sep, value = line.partition("=")
        check(sep == "=", f"properties line without '=': {raw!r}")
        props[key.strip()] = value.strip()
    return props


def option_keys(binary):
    """Every key the option table declares, read from `snowcar config docs`."""
    result = subprocess.run([binary, "config", "docs"], capture_output=True, text=True,
                            timeout=60)
    if result.returncode != 0:
        sys.exit(f"FAIL: {binary} config docs exited {result.returncode}: {result.stderr}")
    names = set(re.findall(r"^### `([^`]+)`", result.stdout, re.M))
    # Keys accepted without effect (Kafka Connect's) are listed in tables, not headings.
    names |= set(re.findall(r"^\| `([^`]+)` \|", result.stdout, re.M))
    if not check(len(names) > 50, f"config docs listed only {len(names)} keys"):
        sys.exit("FAIL: could not read the option table")
    return names


def key_declared(key, names):
    if key in names:
        return True
    for name in names:
        if "<" not in name:
            continue
        # A `<placeholder>` segment matches any non-empty text, dots included.
        pattern = ".+".join(re.escape(part) for part in re.split(r"<[^>]+>", name))
        if re.fullmatch(pattern, key):
            return True
    return False


def is_secret_key(key, names):
    """A `<key>.file` entry naming a secret's file. The base is a declared key, and either
    the `.file` form is not a key of its own (snow.auth.password.file) or, inside a family
    like kafka.<property>, the base names a password, secret or token (as snowcar decides)."""
    if not key.endswith(".file"):
        return False
    base = key[:-len(".file")]
    if not key_declared(base, names):
        return False
    return not key_declared(key, names) or re.search(r"(password|secret|token)$", base)


def state_commands(binary):
    """The `snowcar state` commands, from the help the binary prints."""
    result = subprocess.run([binary, "state", "--help"], capture_output=True, text=True,
                            timeout=30)
    usage = result.stdout + result.stderr
    body = re.split(r"^commands:", usage, maxsplit=1, flags=re.I | re.M)[-1]
    return set(re.findall(r"^  ([a-z][a-z-]*)", body, re.M))


def one(objects, kind):
    found = [o for o in objects if o.get("kind") == kind]
    check(len(found) == 1, f"expected one {kind}, found {len(found)}")
    return found[0] if found else {}


def mount_of(container, volume):
    for m in container.get("volumeMounts", []):
        if m.get("name") == volume:
            return m
    return None


def check_probe(where, probe, want, config_path, commands):
    if not check(probe is not None, f"{where}: probe missing"):
        return
    cmd = probe.get("exec", {}).get("command", [])
    if not check(len(cmd) >= 3, f"{where}: not an exec probe of snowcar: {cmd}"):
        return
    check(os.path.basename(cmd[0]) == "snowcar" and cmd[1] == "state",
          f"{where}: expected `snowcar state ...`, got {cmd}")
    check(cmd[-1] in commands, f"{where}: `snowcar state {cmd[-1]}` is not a command of the "
          f"binary (it has {sorted(commands)})")
    check(cmd[-1] == want, f"{where}: expected `state {want}`, got `state {cmd[-1]}`")
    if "--config" in cmd:
        given = cmd[cmd.index("--config") + 1]
        check(given == config_path,
              f"{where}: --config {given}, but the config is mounted at {config_path}")


def check_container_security(name, container):
    sc = container.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") is True, f"{name}: readOnlyRootFilesystem not true")
    check(sc.get("allowPrivilegeEscalation") is False,
          f"{name}: allowPrivilegeEscalation not false")
    check("ALL" in sc.get("capabilities", {}).get("drop", []),
          f"{name}: capabilities do not drop ALL")
    check(sc.get("runAsUser", 1) != 0 and sc.get("privileged") is not True,
          f"{name}: runs as root or privileged")
    res = container.get("resources", {})
    for part in ("requests", "limits"):
        for what in ("cpu", "memory"):
            check(what in res.get(part, {}), f"{name}: resources.{part}.{what} not set")


def check_rendering(label, objects, names, commands):
    sts = one(objects, "StatefulSet")
    cms = [o for o in objects if o.get("kind") == "ConfigMap"]
    pdb = one(objects, "PodDisruptionBudget")
    pod = sts.get("spec", {}).get("template", {}).get("spec", {})
    pod_labels = sts.get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {})
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    claims = {c["metadata"]["name"] for c in sts.get("spec", {}).get("volumeClaimTemplates", [])}

    # The native sidecar.
    sidecars = [c for c in pod.get("initContainers", []) if c.get("name") == "snowcar"]
    if not check(len(sidecars) == 1, f"{label}: no initContainer named snowcar"):
        return
    sidecar = sidecars[0]
    check(sidecar.get("restartPolicy") == "Always",
          f"{label}: snowcar initContainer lacks restartPolicy: Always (not a native sidecar)")
    apps = pod.get("containers", [])
    check(len(apps) >= 1, f"{label}: no application container")

    # Static group membership: POD_NAME is the replica's stable name (metadata.name of a
    # StatefulSet pod), which snowcar uses as kafka.group.instance.id.
    env = {e.get("name"): e for e in sidecar.get("env", [])}
    pod_name = env.get("POD_NAME", {}).get("valueFrom", {}).get("fieldRef", {})
    check(pod_name.get("fieldPath") == "metadata.name",
          f"{label}: snowcar has no POD_NAME from the downward API (metadata.name), so a "
          "restarted replica waits for the session timeout instead of rejoining as itself")

    # The configuration: --config FILE names a key of a mounted ConfigMap.
    args = sidecar.get("args", []) + sidecar.get("command", [])
    if not check("--config" in args, f"{label}: snowcar is not started with --config"):
        return
    config_path = args[args.index("--config") + 1]
    config_dir, config_key = os.path.split(config_path)
    config_mount = next((m for m in sidecar.get("volumeMounts", [])
                         if m["mountPath"] == config_dir), None)
    if not check(config_mount is not None, f"{label}: nothing mounted at {config_dir}"):
        return
    cm_name = volumes.get(config_mount["name"], {}).get("configMap", {}).get("name")
    cm = next((c for c in cms if c["metadata"]["name"] == cm_name), None)
    if not check(cm is not None and config_key in cm.get("data", {}),
                 f"{label}: ConfigMap {cm_name} with key {config_key} not rendered"):
        return
    props = parse_properties(cm["data"][config_key])

    # Every key is one the option table declares (or a secret read from a file).
    for key in props:
        check(key_declared(key, names) or is_secret_key(key, names),
              f"{label}: config key {key!r} is not in the option table")

    # The socket: an emptyDir mounted in every container at socket.path's directory.
    socket_dir = os.path.dirname(props.get("socket.path", "/var/run/snowcar/snowcar.sock"))
    socket_vols = [n for n, v in volumes.items() if "emptyDir" in v]
    for c in [sidecar] + apps:
        found = any((m := mount_of(c, n)) and m["mountPath"] == socket_dir for n in socket_vols)
        check(found, f"{label}: container {c['name']} has no emptyDir at {socket_dir} "
              f"(socket.path={props.get('socket.path')})")

    # state.dir on the per-replica claim.
    state_dir = props.get("state.dir", "/var/lib/snowcar")
    on_claim = [m for m in sidecar.get("volumeMounts", []) if m["name"] in claims and
                (state_dir == m["mountPath"] or state_dir.startswith(m["mountPath"] + "/"))]
    check(on_claim, f"{label}: state.dir={state_dir} is not on a volumeClaimTemplate mount")

    # Probes.
    check_probe(f"{label} liveness", sidecar.get("livenessProbe"), "health", config_path, commands)
    check_probe(f"{label} readiness", sidecar.get("readinessProbe"), "ready", config_path,
                commands)
    if "startupProbe" in sidecar:
        check_probe(f"{label} startup", sidecar["startupProbe"], "health", config_path, commands)

    # Security.
    psc = pod.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True, f"{label}: pod runAsNonRoot not true")
    check(psc.get("runAsUser", 0) != 0, f"{label}: pod runs as uid 0")
    for c in [sidecar] + apps:
        check_container_security(f"{label} {c['name']}", c)

    # Secrets: mounted read-only, referenced by `.file` keys, never inline.
    secret_mounts = [m for m in sidecar.get("volumeMounts", [])
                     if "secret" in volumes.get(m["name"], {})]
    check(secret_mounts, f"{label}: no Secret mounted in snowcar")
    for m in secret_mounts:
        check(m.get("readOnly") is True, f"{label}: Secret mount {m['mountPath']} not read-only")
    file_keys = {k: v for k, v in props.items() if is_secret_key(k, names)}
    check(file_keys, f"{label}: no credential given as a `<key>.file` entry")
    for key, path in file_keys.items():
        check(any(path.startswith(m["mountPath"] + "/") for m in secret_mounts),
              f"{label}: {key}={path} is not under a Secret mount")
    for key, value in props.items():
        inline_secret = re.search(r"(password|secret|token)$", key) and value
        check(not inline_secret, f"{label}: secret {key} given inline in the ConfigMap")

    # Disruption budget over the same pods.
    check(pdb.get("spec", {}).get("maxUnavailable") == 1, f"{label}: PDB maxUnavailable != 1")
    selector = pdb.get("spec", {}).get("selector", {}).get("matchLabels", {})
    check(selector and all(pod_labels.get(k) == v for k, v in selector.items()),
          f"{label}: PDB selector {selector} does not select the pods {pod_labels}")
    return sts, props, file_keys


def check_config_accepted(binary, label, props, file_keys):
    """`snowcar config check` on the rendered properties, secret files replaced by temp files."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = []
        for key, value in props.items():
            if key in file_keys:
                value = os.path.join(tmp, os.path.basename(value))
                with open(value, "w") as f:
                    f.write("not-a-real-secret\n")
            lines.append(f"{key}={value}")
        path = os.path.join(tmp, "snowcar.properties")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWCAR_")}
        result = subprocess.run([binary, "config", "check", path], capture_output=True,
                                text=True, timeout=60, env=env)
        check(result.returncode == 0, f"{label}: snowcar config check refused the ConfigMap's "
              f"properties:\n{result.stdout}{result.stderr}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_manifests.py SNOWCAR_BINARY REPO_ROOT")
    binary, repo = sys.argv[1], sys.argv[2]
    names = option_keys(binary)
    commands = state_commands(binary)
    check({"health", "ready"} <= commands, f"`snowcar state` lacks health/ready: {commands}")

    rendered = {}
    for label in ("k8s/base", "k8s/overlays/example"):
        rendered[label] = render(repo, label)
        result = check_rendering(label, rendered[label], names, commands)
        if result:
            _, props, file_keys = result
            check_config_accepted(binary, label, props, file_keys)

    # What the example overlay changes.
    overlay = rendered["k8s/overlays/example"]
    sts = one(overlay, "StatefulSet")
    check(sts.get("spec", {}).get("replicas") == 3, "overlay: replicas is not 3")
    inits = sts.get("spec", {}).get("template", {}).get("spec", {}).get("initContainers", [])
    sidecar = next((c for c in inits if c.get("name") == "snowcar"), {})
    check(re.search(r":[0-9][^:]*$", sidecar.get("image", "")) is not None,
          f"overlay: snowcar image not pinned to a tag: {sidecar.get('image')}")
    check(all(o.get("metadata", {}).get("namespace") for o in overlay
              if o.get("kind") != "Namespace"),
          "overlay: some object has no namespace")
    # The namespace the objects (and the first documented command) use is created by the
    # overlay itself.
    used = {o["metadata"]["namespace"] for o in overlay if o.get("metadata", {}).get("namespace")}
    created = {o["metadata"]["name"] for o in overlay if o.get("kind") == "Namespace"}
    check(used and used <= created, f"overlay: namespaces {used} used but only {created} created")
    production_md = open(os.path.join(repo, "docs", "production.md")).read()
    first_kubectl = re.search(r"^kubectl .*$", production_md, re.M)
    if check(first_kubectl, "docs/production.md: no kubectl command"):
        line = first_kubectl.group(0)
        check("namespace.yaml" in line or "create namespace" in line,
              f"docs/production.md: the first kubectl command does not create the namespace: "
              f"{line}")

    # Several replicas share one properties file: the source, if on or turned on later, must
    # share its tables through a group, or every replica emits every row.
    overlay_props = parse_properties(next(c for c in overlay if c.get("kind") == "ConfigMap")
                                     ["data"]["snowcar.properties"])
    check(overlay_props.get("source.group.id"),
          "overlay: 3 replicas share snowcar.properties without source.group.id")

    # docs/examples/production.properties names files (the Kafka CA) the base must mount.
    with open(os.path.join(repo, "docs", "examples", "production.properties")) as f:
        production = parse_properties(f.read())
    base_sts = one(rendered["k8s/base"], "StatefulSet")
    base_inits = base_sts["spec"]["template"]["spec"].get("initContainers", [])
    base_sidecar = next((c for c in base_inits if c.get("name") == "snowcar"), {})
    mounts = [m["mountPath"] for m in base_sidecar.get("volumeMounts", [])]
    for key, path in production.items():
        if key.endswith(".location") or key.endswith(".file"):
            check(any(path.startswith(m + "/") for m in mounts),
                  f"production.properties: {key}={path} is not under a mount of k8s/base")

    # The scrape path: admin.listen's port on the snowcar container, a Service port named
    # `metrics` reaching it, a ServiceMonitor selecting that Service and port, and a job name
    # (the Service's) that the SnowcarNotScraped alert's job=~"snowcar.*" matches.
    props = parse_properties(next(c for c in overlay if c.get("kind") == "ConfigMap")
                             ["data"]["snowcar.properties"])
    listen = props.get("admin.listen", "")
    check(listen.rsplit(":", 1)[-1].isdigit() and props.get("admin.listen.allow.remote") == "true",
          f"overlay: admin.listen={listen!r} is not a port Prometheus can reach")
    port = int(listen.rsplit(":", 1)[-1]) if listen.rsplit(":", 1)[-1].isdigit() else -1
    ports = {p.get("name"): p.get("containerPort") for p in sidecar.get("ports", [])}
    check(ports.get("metrics") == port,
          f"overlay: the snowcar container has no port `metrics` = {port}: {ports}")
    services = [o for o in overlay if o.get("kind") == "Service" and
                any(p.get("name") == "metrics" for p in o.get("spec", {}).get("ports", []))]
    monitors = [o for o in overlay if o.get("kind") == "ServiceMonitor"]
    if check(len(services) == 1 and len(monitors) == 1,
             "overlay: expected one Service with a `metrics` port and one ServiceMonitor"):
        svc, mon = services[0], monitors[0]
        check(svc["metadata"]["name"].startswith("snowcar"),
              f"overlay: metrics Service {svc['metadata']['name']} would name a job the "
              "SnowcarNotScraped alert does not match")
        pod_labels = sts["spec"]["template"]["metadata"]["labels"]
        check(all(pod_labels.get(k) == v for k, v in svc["spec"]["selector"].items()),
              "overlay: the metrics Service does not select the pods")
        want = mon["spec"].get("selector", {}).get("matchLabels", {})
        check(want and all(svc["metadata"].get("labels", {}).get(k) == v for k, v in want.items()),
              "overlay: the ServiceMonitor does not select the metrics Service")
        check(any(e.get("port") == "metrics" and e.get("path") == "/metrics"
                  for e in mon["spec"].get("endpoints", [])),
              "overlay: the ServiceMonitor does not scrape port `metrics` at /metrics")
        others = [o for o in overlay if o.get("kind") == "Service" and o is not svc]
        check(all(not all(o["metadata"].get("labels", {}).get(k) == v for k, v in want.items())
                  for o in others),
              "overlay: the ServiceMonitor also selects the headless Service")

    if FAILURES:
        print("FAIL:\n  " + "\n  ".join(FAILURES))
        return 1
    print("k8s manifests: base and example overlay pass every check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
