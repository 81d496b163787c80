#!/usr/bin/python3
"""Fails when the environment contract is spelt differently in its three places.

The table in docs/architecture.md#environment (rows with a `constant`), the C++ header
core/include/trn/common/env_names.hpp and the Python module trainer/trn_trainer/env_names.py
must name the same variables; the table's constant must be the header's name for it, and each
Python name must equal its value. Usage: check_env_names.py [SOURCE_DIR] (default: this repo).
"""
import ast
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = "docs/architecture.md"
HEADER = "core/include/trn/common/env_names.hpp"
MODULE = "trainer/trn_trainer/env_names.py"


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def table_contract(text):
    """{variable: constant} from the rows of the environment table that name a constant."""
    section = text.split('<a id="environment"></a>', 1)
    if len(section) != 2:
        sys.exit(f"{TABLE}: no <a id=\"environment\"></a> section")
    rows = [line for line in section[1].splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    if header[0] != "name" or header[-1] != "constant":
        sys.exit(f"{TABLE}: the environment table must start with 'name' and end with 'constant'")
    contract = {}
    for row in rows[2:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        constant = cells[-1].strip("`")
        if not constant:
            continue
        names = re.findall(r"`([A-Z][A-Z0-9_]*)`", cells[0])
        if len(names) != 1:
            sys.exit(f"{TABLE}: a row with constant {constant} must name one variable: {cells[0]}")
        contract[names[0]] = constant
    return contract


def header_contract(text):
    """{variable: constant} from the header's inline constexpr std::string_view constants."""
    found = re.findall(r'inline constexpr std::string_view (k\w+) =\s*"([^"]*)";', text)
    return {value: name for name, value in found}


def module_contract(text):
    """{variable: name} from the module's NAME = "VALUE" assignments."""
    contract = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            contract[node.value.value] = node.targets[0].id
    return contract


def main():
    table = table_contract(read(TABLE))
    header = header_contract(read(HEADER))
    module = module_contract(read(MODULE))
    problems = []
    for name in sorted(set(table) | set(header) | set(module)):
        where = [place for place, names in ((TABLE, table), (HEADER, header), (MODULE, module))
                 if name not in names]
        if where:
            problems.append(f"{name} is missing from {', '.join(where)}")
            continue
        if table[name] != header[name]:
            problems.append(f"{name}: {TABLE} says constant {table[name]}, {HEADER} {header[name]}")
        if module[name] != name:
            problems.append(f"{name}: {MODULE} calls it {module[name]}")
    if not table:
        problems.append(f"{TABLE}: no variable has a constant")
    for problem in problems:
        print(f"check_env_names: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_env_names: {len(table)} variables alike in the table, header and module")
    return 0


if __name__ == "__main__":
    sys.exit(main())
