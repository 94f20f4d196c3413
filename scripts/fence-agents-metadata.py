#!/usr/bin/python3
# Regenerates lib/fenceAgents/metadata.json, the table Palisade checks every FencePolicy exec
# agent against (lib/fenceAgents/policy.ts): for each ClusterLabs fence agent installed here,
# the long options its own metadata (`fence_<agent> -o metadata`) declares and the type of
# each value (boolean, string, integer, second, or the list of a select's choices).
#
#   python3 scripts/fence-agents-metadata.py            # every /usr/sbin/fence_* that answers
#   python3 scripts/fence-agents-metadata.py --check    # exit 1 if the table differs (CI drift)
#   python3 scripts/fence-agents-metadata.py --print fence_ipmilan   # one agent, as JSON
#
# The XML is read with the standard library's ElementTree. Options every agent has with the same
# type go to "common"; an agent whose metadata names another as a symlink with the same options
# is written as an alias ("fence_idrac": "fence_ipmilan").
import glob
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "lib", "fenceAgents", "metadata.json")
AGENT_DIR = "/usr/sbin"
LONG_OPTION = re.compile(r"--([A-Za-z0-9][A-Za-z0-9_.-]*)")


def metadata(path):
    """The agent's XML, or None when it does not answer (fence_ack_manual is a shell script)."""
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "PYTHONWARNINGS": "ignore"}
    try:
        out = subprocess.run([path, "-o", "metadata"], capture_output=True, timeout=30, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    try:
        return ET.fromstring(out.stdout)
    except ET.ParseError:
        return None


def value_type(content):
    kind = content.get("type")
    if kind == "select":
        return [o.get("value") for o in content.findall("option")]
    return kind


def parameters(root):
    """long option -> type; a deprecated name sharing its option with the current one adds nothing."""
    params = {}
    for p in root.find("parameters"):
        m = LONG_OPTION.search(p.find("getopt").get("mixed", ""))
        if not m:
            continue
        option = "--" + m.group(1)
        kind = value_type(p.find("content"))
        # the current name wins over a deprecated one where their types differ
        if option not in params or p.get("deprecated") != "1":
            params[option] = kind
    return dict(sorted(params.items()))


def package_version():
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "fence-agents"], capture_output=True)
        return out.stdout.decode().strip() or "unknown"
    except OSError:
        return "unknown"


def read_agents(names=None):
    agents, symlinks = {}, {}
    paths = sorted(glob.glob(os.path.join(AGENT_DIR, "fence_*")))
    for path in paths:
        name = os.path.basename(path)
        if names and name not in names:
            continue
        root = metadata(path)
        if root is None:
            continue
        agents[name] = parameters(root)
        symlinks[name] = [s.get("name") for s in root.findall("symlink")]
    return agents, symlinks


def table():
    agents, symlinks = read_agents()
    common = None
    for params in agents.values():
        items = {k: json.dumps(v) for k, v in params.items()}
        common = items if common is None else {k: v for k, v in common.items() if items.get(k) == v}
    common = {k: json.loads(v) for k, v in sorted((common or {}).items())}
    own = {n: {k: v for k, v in p.items() if k not in common} for n, p in agents.items()}
    aliases = {}
    for name, links in symlinks.items():
        for link in links:
            if link in own and link != name and link not in aliases and name not in aliases:
                if own[link] == own[name]:
                    aliases[link] = name
    out = {n: (aliases[n] if n in aliases else own[n]) for n in sorted(own)}
    return {
        "source": f"fence-agents {package_version()}: {AGENT_DIR}/fence_* -o metadata "
        "(regenerate: python3 scripts/fence-agents-metadata.py)",
        "common": common,
        "agents": out,
    }


def dumps(value, indent=0):
    """JSON as biome formats it: objects one key a line, short arrays on one line."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad}  {json.dumps(k)}: {dumps(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(v) for v in value) + "]"
    return json.dumps(value)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--print"]:
        agents, _ = read_agents(set(args[1:]))
        print(dumps(agents))
        return 0
    text = dumps(table()) + "\n"
    if args[:1] == ["--check"]:
        with open(TABLE) as f:
            if f.read() != text:
                print(f"{TABLE} differs from the installed agents' metadata: regenerate it", file=sys.stderr)
                return 1
        return 0
    with open(TABLE, "w") as f:
        f.write(text)
    print(f"wrote {TABLE}: {len(json.loads(text)['agents'])} agents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
