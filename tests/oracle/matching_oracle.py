#!/usr/bin/env python3
"""matching_oracle.py -- networkx's maximum-weight matching, an independent
oracle for weft_max_weight_matching (tests/unit/test_match.c).

stdin: graphs one after the other, each a line "graph N MAXCARD M" (MAXCARD
0 or 1) followed by M lines "I J W" (0 <= I, J < N, integer W > 0).
stdout: one line per graph, "WEIGHT CARDINALITY" of networkx's matching.
Exit status 3 when networkx cannot be imported, 2 on malformed input."""
import sys

try:
    import networkx as nx
except ImportError:
    print("skipped: python3-networkx not installed")
    sys.exit(3)


def main():
    tokens = sys.stdin.read().split()
    pos = 0
    out = []
    while pos < len(tokens):
        if tokens[pos] != "graph":
            sys.stderr.write("matching_oracle: expected 'graph' at token %d\n" % pos)
            return 2
        n, maxcard, m = int(tokens[pos + 1]), int(tokens[pos + 2]), int(tokens[pos + 3])
        pos += 4
        g = nx.Graph()
        g.add_nodes_from(range(n))
        for _ in range(m):
            i, j, w = int(tokens[pos]), int(tokens[pos + 1]), int(tokens[pos + 2])
            pos += 3
            g.add_edge(i, j, weight=w)
        mat = nx.max_weight_matching(g, maxcardinality=bool(maxcard))
        total = sum(g[u][v]["weight"] for u, v in mat)
        out.append("%d %d" % (total, len(mat)))
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
