#!/usr/bin/env python3
"""Checks the Grafana dashboard JSON shipped for energyd fleets.

Usage: check_dashboard.py DASHBOARD.json METRICS.txt

METRICS.txt is an exporter's /metrics page (its "# TYPE" lines name the
exported families). Checks: the dashboard is a JSON object with a title, a
uid and a list of panels; every panel has an id, a title, a type, a gridPos
and at least one target; every target has a refId and a PromQL expr, and
every energyd_* name in an expr is an exported family,
and so is every one in a template variable's
query. Exit status 0 when clean, 1 with every finding
listed otherwise.
"""
import json
import re
import sys


def exported_families(metrics_text):
    names = set()
    for line in metrics_text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            names.add(m.group(1))
    return names


def panel_findings(panel, families):
    out = []
    title = panel.get("title", "?")
    for key in ("id", "title", "type", "gridPos"):
        if key not in panel:
            out.append("panel %r has no %s" % (title, key))
    targets = panel.get("targets")
    if not isinstance(targets, list) or not targets:
        return out + ["panel %r has no targets" % title]
    for t in targets:
        expr = t.get("expr") if isinstance(t, dict) else None
        if not isinstance(expr, str) or not expr.strip():
            out.append("panel %r has a target without an expr" % title)
            continue
        if "refId" not in t:
            out.append("panel %r: target %r has no refId" % (title, expr))
        names = set(re.findall(r"\benergyd_[a-zA-Z0-9_]+", expr))
        if not names:
            out.append("panel %r: %r names no energyd metric" % (title, expr))
        for n in sorted(names - families):
            out.append("panel %r: %r is not an exported metric" % (title, n))
    return out


def findings(dashboard, families):
    if not isinstance(dashboard, dict):
        return ["the dashboard is not a JSON object"]
    out = ["the dashboard has no %s" % k for k in ("title", "uid", "panels") if k not in dashboard]
    panels = dashboard.get("panels")
    if not isinstance(panels, list) or not panels:
        return out + ["the dashboard has no panels"]
    ids = [p.get("id") for p in panels if isinstance(p, dict)]
    if len(ids) != len(set(ids)):
        out.append("panel ids repeat: %r" % ids)
    for p in panels:
        out += panel_findings(p, families) if isinstance(p, dict) else ["a panel is not an object"]
    for var in dashboard.get("templating", {}).get("list", []):
        query = var.get("query") if isinstance(var, dict) else None
        for n in sorted(set(re.findall(r"\benergyd_[a-zA-Z0-9_]+", query if isinstance(query, str) else ""))):
            if n not in families:
                out.append("variable %r: %r is not an exported metric" % (var.get("name"), n))
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        dashboard = json.load(f)
    with open(argv[2]) as f:
        families = exported_families(f.read())
    if not families:
        print("check_dashboard: %s has no '# TYPE' lines" % argv[2], file=sys.stderr)
        return 1
    found = findings(dashboard, families)
    for line in found:
        print("check_dashboard: " + line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
