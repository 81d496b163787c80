"""The trainer's layout (trainer/trn_trainer): concern packages whose imports form no cycle, each
importing only the packages its __init__ docstring allows ("May import: ..."), and no module over
300 lines. Every import counts: relative or absolute, at the top or inside a function, and a
module named in a string ("trn_trainer.tasks.pretrain", imported with importlib)."""

import ast
import os
import re

from trainer_testlib import TRAINER

PACKAGE = os.path.join(TRAINER, "trn_trainer")
MAX_LINES = 300
TOP = "the top-level modules"  # errors, env_names, environment, heartbeat, metrics, outside_files
CLI = "cli"  # cli.py and __main__.py: the command line, which nothing imports back
ALLOWED = {
    TOP: set(),
    "devices": {TOP},
    "parallel": {TOP},
    "checkpoint": {TOP, "parallel"},  # llama_state: which dimension a tensor-parallel slice splits
    "training": {TOP},
    "models": {TOP, "parallel"},
    "data": {TOP, "models"},
    "weights": {TOP, "checkpoint", "models", "parallel"},
    "tasks": {TOP, "checkpoint", "data", "devices", "models", "parallel", "training", "weights"},
    CLI: {TOP, "data", "tasks"},
}
MODULE_NAME = re.compile(r"^trn_trainer(\.\w+)+$")


def modules():
    """(path, its package's parts below trn_trainer, its own name) of every module."""
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        parts = os.path.relpath(folder, PACKAGE).split(os.sep)
        parts = [] if parts == ["."] else parts
        for name in sorted(f for f in files if f.endswith(".py")):
            yield os.path.join(folder, name), parts, name[:-3]


def unit(parts):
    """The package (or TOP, CLI) that trn_trainer.<parts...> belongs to."""
    if parts and os.path.isdir(os.path.join(PACKAGE, parts[0])):
        return parts[0]
    return CLI if parts and parts[0] in ("cli", "__main__") else TOP


def imported(tree, package):
    """(line, parts below trn_trainer) of everything the module (in package `package`) imports."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)]
            if node.module:
                yield node.lineno, base + node.module.split(".")
            else:
                for alias in node.names:
                    yield node.lineno, base + [alias.name]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "trn_trainer":
            parts = node.module.split(".")[1:]
            for alias in node.names:
                yield node.lineno, parts or [alias.name]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "trn_trainer":
                    yield node.lineno, alias.name.split(".")[1:]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.match(node.value):
            yield node.lineno, node.value.split(".")[1:]


def edges():
    """{(from unit, to unit): ["path:line", ...]} of the imports between units."""
    found = {}
    for path, package, name in modules():
        source = unit(package + ([] if name == "__init__" else [name]))
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for line, parts in imported(tree, package):
            target = unit(parts)
            if target != source:
                found.setdefault((source, target), []).append(f"{os.path.relpath(path, TRAINER)}:{line}")
    return found


def declared(package):
    """The units `package`'s __init__ docstring says it may import."""
    with open(os.path.join(PACKAGE, package, "__init__.py")) as f:
        doc = ast.get_docstring(ast.parse(f.read())) or ""
    lines = [line for line in doc.splitlines() if line.startswith("May import:")]
    assert len(lines) == 1, f"{package}/__init__.py: its docstring needs one line 'May import: ...'"
    return {item.strip() for item in lines[0][len("May import:"):].strip().rstrip(".").split(",")}


def test_every_package_says_what_it_may_import_and_holds_nothing_else():
    packages = sorted(d for d in os.listdir(PACKAGE) if os.path.isdir(os.path.join(PACKAGE, d))
                      and d != "__pycache__")
    assert sorted(set(ALLOWED) - {TOP, CLI}) == packages
    for package in packages:
        assert declared(package) == ALLOWED[package], package
        with open(os.path.join(PACKAGE, package, "__init__.py")) as f:
            body = ast.parse(f.read()).body
        assert len(body) == 1 and isinstance(body[0], ast.Expr), f"{package}/__init__.py: only a docstring"


def test_packages_import_only_what_they_may():
    wrong = {pair: where for pair, where in edges().items() if pair[1] not in ALLOWED[pair[0]]}
    assert not wrong, "\n".join(f"{a} imports {b}: {', '.join(where)}" for (a, b), where in wrong.items())


def _cycle(graph):
    """A cycle of `graph` ({node: successors}) as a list of nodes, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_no_cycle_between_packages():
    actual = {}
    for a, b in edges():
        actual.setdefault(a, set()).add(b)
    assert _cycle(actual) is None, " -> ".join(_cycle(actual))
    assert _cycle(ALLOWED) is None, " -> ".join(_cycle(ALLOWED))


def test_the_scan_sees_every_kind_of_import():
    tree = ast.parse("from ..errors import UsageError\nfrom . import files\n"
                     "import trn_trainer.data.sampling\ndef f():\n    from ..models.bert import BertModel\n"
                     "RUN = ('trn_trainer.tasks.pretrain', 'pretrain')\n")
    assert [unit(parts) for _, parts in imported(tree, ["checkpoint"])] == \
        [TOP, "checkpoint", "data", "models", "tasks"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_module_over_300_lines():
    long = []
    for path, _, _ in modules():
        with open(path, "rb") as f:
            lines = f.read().count(b"\n")
        if lines > MAX_LINES:
            long.append(f"{os.path.relpath(path, TRAINER)}: {lines} lines")
    assert not long, "split these: " + "; ".join(long)
