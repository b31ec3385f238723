#!/usr/bin/env python3
"""arch_check.py — the architecture's one rule, checked on a build: data flows
one way, so no two source files depend on each other, directly or round a
circle. Two graphs: which object file calls or reads a symbol defined in
another (nm on BUILD/src/*/*.o and BUILD/cli/*.o), and which file #includes
which (src/, cli/, include/). Each must be acyclic; a circle is printed with
the symbols that close it. A self-test first plants a circle and must find it.
Prints "arch: N passed, M failed"."""
import glob
import os
import re
import subprocess
import sys


def circles(graph):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def symbol_graph(build):
    objs = sorted(glob.glob(os.path.join(build, "src", "*", "*.o")) +
                  glob.glob(os.path.join(build, "cli", "*.o")))
    defs, uses = {}, {}
    for o in objs:
        name = os.path.relpath(o, build)[:-2] + ".c"
        text = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        uses[name] = set()
        for line in text.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRCV":
                defs[f[2]] = name
            elif len(f) == 2 and f[0] == "U":
                uses[name].add(f[1])
    graph = {n: {defs[s] for s in us if s in defs and defs[s] != n} for n, us in uses.items()}
    why = {(a, b): sorted(s for s in uses[a] if defs.get(s) == b) for a in graph for b in graph[a]}
    return objs, graph, why


def include_graph():
    files = sorted(glob.glob("src/*/*.[ch]") + glob.glob("cli/*.[ch]") +
                   glob.glob("include/*.h") + glob.glob("include/weft/*.h"))
    graph = {}
    for f in files:
        graph[f] = set()
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if not m:
                    continue
                for cand in (os.path.join(os.path.dirname(f), m.group(1)),
                             os.path.join("src", m.group(1)), os.path.join("include", m.group(1))):
                    if os.path.exists(cand):
                        graph[f].add(os.path.normpath(cand))
                        break
    return graph


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    passed = failed = 0

    def report(ok, name, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL arch %s%s" % (name, detail))

    planted = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    report(circles(planted) == [["a", "b", "c"]], "self-test", ": the planted circle a-b-c")
    objs, graph, why = symbol_graph(build)
    report(len(objs) > 50, "objects", ": only %d object files under %s" % (len(objs), build))
    found = circles(graph)
    detail = ""
    for comp in found:
        detail += "\n  files calling each other: " + ", ".join(comp)
        for a in comp:
            for b in sorted(graph[a]):
                if b in comp:
                    detail += "\n    %s -> %s: %s" % (a, b, " ".join(why[(a, b)][:6]))
    report(not found, "symbols", detail)
    found = circles(include_graph())
    report(not found, "includes", "".join("\n  files including each other: " + ", ".join(c)
                                          for c in found))
    print("arch: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
