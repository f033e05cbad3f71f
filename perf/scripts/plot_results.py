#!/usr/bin/python3
"""Bar charts of `tessera compare ... --csv` output: per kernel and variant
the achieved rate against the row's own ceiling (memory-bound rows: GB/s,
compute- and roofline-bound rows: GFLOP/s), each bar labelled with its % of
the platform's measured ceiling.
Uses Debian's python3-matplotlib (no other dependency).

usage: perf/scripts/plot_results.py results.csv [more.csv ...] -o chart.png [--title T]
"""
import argparse
import csv
import os
import sys


def load(paths):
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                need = {"workload", "kernel", "variant", "platform", "gbs", "roof_pct"}
                if not reader.fieldnames or not need.issubset(reader.fieldnames):
                    sys.exit(f"plot_results: {path} is not a tessera results CSV (columns {sorted(need)})")
                for r in reader:
                    try:
                        r["gbs"] = float(r["gbs"])
                        r["roof_pct"] = float(r["roof_pct"])
                        r["gflops"] = float(r.get("gflops") or 0)
                        # The rate the row's ceiling is in (older CSVs: GB/s).
                        r["rate"] = r["gbs"] if r.get("bound", "memory") == "memory" else r["gflops"]
                    except ValueError:
                        sys.exit(f"plot_results: {path}: malformed number in row {r}")
                    rows.append(r)
        except OSError as e:
            sys.exit(f"plot_results: cannot read {path}: {e.strerror}")
    if not rows:
        sys.exit("plot_results: no result rows")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default=None)
    args = ap.parse_args()
    rows = load(args.csv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    variants = list(dict.fromkeys(f'{r["variant"]} [{r["platform"]}]' for r in rows))
    width = 0.8 / len(variants)
    fig, ax = plt.subplots(figsize=(max(6, 1.8 * len(kernels) * max(1, len(variants) / 3)), 4.5))
    for vi, v in enumerate(variants):
        for ki, k in enumerate(kernels):
            match = [r for r in rows if r["kernel"] == k and f'{r["variant"]} [{r["platform"]}]' == v]
            if not match:
                continue
            r = match[0]
            x = ki + (vi - (len(variants) - 1) / 2) * width
            color = f"C{vi}" if len(variants) <= 10 else plt.cm.tab20(vi % 20)  # distinct beyond 10
            ax.bar(x, max(r["rate"], 1e-9), width, color=color, label=v if ki == 0 else None)
            if r["roof_pct"] > 0:
                ax.annotate(f'{r["roof_pct"]:.0f}%', (x, r["rate"]), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels)
    bounds = {r.get("bound", "memory") for r in rows}
    ax.set_ylabel("GB/s" if bounds == {"memory"} else "GFLOP/s" if "memory" not in bounds
                  else "GB/s (memory-bound kernels), GFLOP/s (others)")
    ax.set_yscale("log")
    ax.set_ylim(top=max(max(r["rate"] for r in rows), 1e-6) * 12)  # room for the legend above the bars
    ax.set_title(args.title or f'tessera compare {rows[0]["workload"]} (labels: % of the measured ceiling)',
                 fontsize=9, wrap=True)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    tmp = args.output + ".tmp.png"
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, args.output)  # never a half-written chart
    print(f"plot_results: wrote {args.output}")


if __name__ == "__main__":
    main()
