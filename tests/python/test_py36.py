"""The Python client stays usable on Python 3.6 (JetPack 4.6, Ubuntu 18.04; issue 18).

Checks clients/python/energyd.py without running it on 3.6 (no 3.6 here):
  - its syntax parses with ast.parse(..., feature_version=(3, 6));
  - every standard library module, name and builtin it uses is listed in
    STDLIB below with the Python version that added it, and all are <= 3.6
    (a new call must be added to the list, with its version, to pass);
  - none of the 3.7+ idioms that parse as 3.6 syntax: `from __future__ import
    annotations`, subprocess's capture_output=/text= (f"{x=}" fails the parse);
  - `pip install` of clients/python works (pyproject.toml + setup.cfg, no
    dependencies) and a single copied energyd.py imports.
The checker itself is tested on snippets that use 3.7+ features.

Run: python3 -m unittest -v test_py36   (needs Python >= 3.8 to run the check)
"""

import ast
import builtins
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

CLIENT_DIR = os.environ.get(
    "ENERGYD_PYTHON_CLIENT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python")
)
CLIENT = os.path.join(CLIENT_DIR, "energyd.py")
TARGET = (3, 6)

# What the client uses from the standard library, with the version that added
# it (docs.python.org "New in version"; 3.0 = present since Python 3 began).
STDLIB = {
    "modules": {
        "errno": (3, 0), "json": (3, 0), "os": (3, 0), "re": (3, 0), "shutil": (3, 0), "signal": (3, 0),
        "socket": (3, 0), "struct": (3, 0), "subprocess": (3, 0), "sys": (3, 0), "threading": (3, 0),
        "time": (3, 0), "typing": (3, 5),
    },
    "attributes": {
        "errno.EAGAIN": (3, 0), "json.dumps": (3, 0), "json.loads": (3, 0), "os.environ": (3, 0),
        "re.compile": (3, 0), "shutil.which": (3, 3), "signal.SIGINT": (3, 0), "sys.stderr": (3, 0),
        # Popen's encoding= and errors= are 3.6; start_new_session= 3.2.
        "subprocess.DEVNULL": (3, 3), "subprocess.PIPE": (3, 0), "subprocess.Popen": (3, 0),
        "subprocess.run": (3, 5),
        "socket.AF_UNIX": (3, 0), "socket.SOCK_STREAM": (3, 0), "socket.socket": (3, 0),
        "socket.timeout": (3, 0), "struct.Struct": (3, 0), "threading.Lock": (3, 0),
        "time.monotonic": (3, 3), "time.sleep": (3, 0),
        "typing.Any": (3, 5), "typing.Callable": (3, 5), "typing.Dict": (3, 5), "typing.List": (3, 5),
        "typing.Mapping": (3, 5), "typing.Optional": (3, 5), "typing.Sequence": (3, 5), "typing.Union": (3, 5),
    },
    "builtins": {
        "BaseException": (3, 0), "BlockingIOError": (3, 3), "BrokenPipeError": (3, 3),
        "ConnectionRefusedError": (3, 3), "ConnectionResetError": (3, 3), "Exception": (3, 0),
        "FileNotFoundError": (3, 3), "OSError": (3, 0), "UnicodeDecodeError": (3, 0), "ValueError": (3, 0),
        "all": (3, 0), "bool": (3, 0), "bytes": (3, 0), "dict": (3, 0), "float": (3, 0), "int": (3, 0),
        "isinstance": (3, 0), "len": (3, 0), "list": (3, 0), "min": (3, 0), "property": (3, 0),
        "repr": (3, 0), "round": (3, 0), "sorted": (3, 0), "str": (3, 0), "super": (3, 0), "tuple": (3, 0),
    },
}
BUILTIN_NAMES = set(dir(builtins))
NEWER_KEYWORDS = {"subprocess": {"capture_output", "text"}}  # both 3.7


def stdlib_uses(tree):
    """(kind, name) pairs: imported modules, module.attribute uses, builtins."""
    aliases, uses = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name] = a.name
                uses.add(("modules", a.name))
        elif isinstance(node, ast.ImportFrom):
            uses.add(("modules", node.module or ""))
            for a in node.names:
                uses.add(("attributes", "{}.{}".format(node.module, a.name)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            uses.add(("attributes", "{}.{}".format(aliases[node.value.id], node.attr)))
        elif isinstance(node, ast.Name) and node.id in BUILTIN_NAMES and node.id not in aliases:
            uses.add(("builtins", node.id))
    return uses


# Syntax nodes newer than 3.6. ast.parse(feature_version=) rejects them only
# from Python 3.10 on (3.9's parser ignores it for these), so they are looked
# for explicitly too.
NEWER_NODES = {"NamedExpr": "assignment expression := (3.8)", "Match": "match statement (3.10)"}


def newer_idioms(tree):
    """3.7+ idioms that the 3.6 grammar accepts, as readable strings."""
    found = []
    for node in ast.walk(tree):
        if type(node).__name__ in NEWER_NODES:
            found.append("syntax newer than 3.6: line {}: {}".format(node.lineno, NEWER_NODES[type(node).__name__]))
        if isinstance(node, ast.arguments) and getattr(node, "posonlyargs", None):
            found.append("syntax newer than 3.6: positional-only parameters (3.8)")
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            found += ["from __future__ import " + a.name for a in node.names if a.name == "annotations"]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
            found += [
                "{}.{}({}=)".format(owner, node.func.attr, k.arg)
                for k in node.keywords
                if k.arg in NEWER_KEYWORDS.get(owner, ())
            ]
    return found


def problems(src):
    """Everything in src that Python 3.6 does not have, or that STDLIB does not list."""
    try:
        tree = ast.parse(src, feature_version=TARGET)
    except SyntaxError as e:
        return ["syntax newer than 3.6: line {}: {}".format(e.lineno, e.msg)]
    out = newer_idioms(tree)
    for kind, name in sorted(stdlib_uses(tree)):
        version = STDLIB[kind].get(name)
        if version is None:
            out.append("{} {} is not in STDLIB (add it with the version that introduced it)".format(kind, name))
        elif version > TARGET:
            out.append("{} {} needs Python {}.{}".format(kind, name, *version))
    return out


class CheckerTest(unittest.TestCase):
    """The checker catches what it must (otherwise the real check could never fail)."""

    def test_newer_syntax_and_modules_are_reported(self):
        cases = {
            "if (n := 3): pass\n": "syntax newer than 3.6",
            "def f(a, /): pass\n": "syntax newer than 3.6",
            "import dataclasses\n": "modules dataclasses",
            "from __future__ import annotations\n": "from __future__ import annotations",
            "import subprocess\nsubprocess.run(['x'], capture_output=True)\n": "subprocess.run(capture_output=)",
            "import subprocess\nsubprocess.run(['x'], text=True)\n": "subprocess.run(text=)",
            "x = 1\ny = f'{x=}'\n": "f-string",
            "import time\ntime.time_ns()\n": "attributes time.time_ns",
            "breakpoint()\n": "builtins breakpoint",
        }
        for src, expected in cases.items():
            with self.subTest(src=src):
                self.assertTrue(any(expected in p for p in problems(src)), problems(src))

    def test_36_code_passes(self):
        self.assertEqual(problems("import time\nx = f'{time.monotonic():.1f} s'\n"), [])


class ClientTest(unittest.TestCase):
    def test_client_uses_nothing_newer_than_36(self):
        with open(CLIENT, encoding="utf-8") as f:
            self.assertEqual(problems(f.read()), [])

    def test_stdlib_list_has_nothing_newer_than_36(self):
        for kind, names in STDLIB.items():
            for name, version in names.items():
                self.assertLessEqual(version, TARGET, "{} {}".format(kind, name))

    def test_single_copied_file_imports(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(CLIENT, d)
            out = subprocess.check_output(
                [sys.executable, "-c", "import energyd; print(energyd.__file__)"], cwd=d, universal_newlines=True
            )
            self.assertEqual(os.path.dirname(out.strip()), d)

    def test_pip_install_of_the_folder(self):
        probes = (["-c", "import setuptools, wheel"], ["-m", "pip", "--version"])
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        if any(subprocess.run([sys.executable] + p, **quiet).returncode != 0 for p in probes):
            self.skipTest("pip, setuptools or wheel missing for {}".format(sys.executable))
        with tempfile.TemporaryDirectory() as d:
            src, target = os.path.join(d, "src"), os.path.join(d, "site")
            shutil.copytree(CLIENT_DIR, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
            subprocess.check_call(
                [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-build-isolation",
                 "--disable-pip-version-check", "--target", target, src],
                env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"),
            )
            out = subprocess.check_output(
                [sys.executable, "-c", "import energyd; print(energyd.__file__)"],
                cwd=d, env=dict(os.environ, PYTHONPATH=target), universal_newlines=True
            )
            self.assertEqual(os.path.dirname(out.strip()), target)


if __name__ == "__main__":
    unittest.main()
