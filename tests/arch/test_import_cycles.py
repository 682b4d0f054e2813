"""No import cycles in core/, bot/ or ontology/, counting every import statement: top level,
inside functions and under `if TYPE_CHECKING:` (a cycle hidden from the interpreter is still a
cycle for the reader). Edges go to the most specific module an import names."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "bot", "ontology")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports, wherever the statement is."""
    is_package = path.name == "__init__.py"
    base = name.split(".") if is_package else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)]
                source = ".".join([*anchor, node.module] if node.module else anchor)
            else:
                source = node.module or ""
            # `from pkg import mod` imports the module pkg.mod when there is one
            targets = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in known]
            targets = targets or [source]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_checker_sees_a_cycle_under_type_checking(tmp_path: Path) -> None:
    graph = {"core.a": {"core.b"}, "core.b": {"core.a"}, "core.c": {"core.a"}}
    assert cycles(graph) == [["core.a", "core.b"]]
    path = tmp_path / "b.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.a import X\n"
    )
    assert imports_of("core.b", path, {"core.a", "core.b"}) == {"core.a"}


def test_domain_modules_import_no_adapter() -> None:
    """Only core/store imports kuzu and only core/llm imports anthropic; the domain (worlds,
    retrieval, recall, the pipeline, the hand-off, the facade) imports ports and rows, never
    an adapter module."""
    graph = import_graph()
    adapters = ("core.store", "core.llm.anthropic_llm", "core.embedding.fastembed")
    domain = [
        m
        for m in graph
        if m.startswith("core.") and not m.startswith(("core.store", "core.llm", "core.embedding"))
    ]
    leaks = {m: sorted(t for t in graph[m] if t.startswith(adapters)) for m in domain}
    assert {m: t for m, t in leaks.items() if t} == {}
    third_party = {"kuzu": "core.store", "anthropic": "core.llm", "aiogram": "bot", "slack": "bot"}
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        roots = {
            (a.name if isinstance(n, ast.Import) else n.module or "").split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.Import | ast.ImportFrom) and not getattr(n, "level", 0)
            for a in (n.names if isinstance(n, ast.Import) else [n])
        }
        for lib, home in third_party.items():
            if lib in roots or f"{lib}_bolt" in roots or f"{lib}_sdk" in roots:
                assert name.startswith(home), (name, lib)
