#!/usr/bin/env python3
"""Checks docs/ARCHITECTURE.md against the code (ctest: arch_doc_modules,
arch_doc_schema).

  check_docs.py modules ARCHITECTURE.md GRAPH
      GRAPH is written by tests/CMakeLists.txt from the targets' link
      libraries, one line per module: "name: dep dep ...". The "## Modules"
      table of ARCHITECTURE.md (first cell `name`, second cell the `modules`
      it uses, or a dash) must list the same modules with the same arrows.
  check_docs.py schema ARCHITECTURE.md STORE_SRC_DIR
      The newest `PRAGMA user_version=N` of the store's migrations must be
      the "schema version N" ARCHITECTURE.md states.
Exit 0 when they agree, 1 with every difference printed otherwise.
"""
import pathlib
import re
import sys


def doc_modules(text):
    m = re.search(r"^## Modules\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        raise SystemExit("ARCHITECTURE.md: no '## Modules' section")
    graph = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not re.fullmatch(r"`[a-z_]+`.*", cells[0]):
            continue
        name = re.match(r"`([a-z_]+)`", cells[0]).group(1)
        graph[name] = set(re.findall(r"`([a-z_]+)`", cells[1]))
    return graph


def cmake_modules(text):
    graph = {}
    for line in text.splitlines():
        if ":" in line:
            name, deps = line.split(":", 1)
            graph[name.strip()] = set(deps.split())
    return graph


def compare(doc, code):
    errors = []
    for name in sorted(set(doc) | set(code)):
        if name not in doc:
            errors.append(f"module '{name}' is in CMake but not in ARCHITECTURE.md")
        elif name not in code:
            errors.append(f"module '{name}' is in ARCHITECTURE.md but not in CMake")
        elif doc[name] != code[name]:
            errors.append(f"module '{name}': ARCHITECTURE.md says it uses {sorted(doc[name])}, "
                          f"CMake links {sorted(code[name])}")
    return errors


def schema_errors(doc_text, src_dir):
    versions = [int(v) for f in sorted(pathlib.Path(src_dir).glob("*.cpp"))
                for v in re.findall(r"PRAGMA user_version\s*=\s*(\d+)", f.read_text())]
    if not versions:
        return [f"no 'PRAGMA user_version=N' in {src_dir}/*.cpp"]
    stated = re.findall(r"schema version (\d+)", doc_text)
    if not stated:
        return ["ARCHITECTURE.md states no 'schema version N'"]
    return [f"ARCHITECTURE.md says schema version {s}, the code migrates to {max(versions)}"
            for s in stated if int(s) != max(versions)]


def main(argv):
    if len(argv) != 4 or argv[1] not in ("modules", "schema"):
        raise SystemExit(__doc__)
    doc_text = pathlib.Path(argv[2]).read_text()
    if argv[1] == "modules":
        errors = compare(doc_modules(doc_text), cmake_modules(pathlib.Path(argv[3]).read_text()))
    else:
        errors = schema_errors(doc_text, argv[3])
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
