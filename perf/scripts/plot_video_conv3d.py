#!/usr/bin/python3
"""conv3d time against k per variant (the shape of Tables 1-2 of Lin et al.).

usage: plot_video_conv3d.py RESULTS.csv OUT.png

RESULTS.csv: `tessera compare video --kernels conv3d --k 3,5,...,15 --csv ...`
(kernel rows conv3d-k<k>), or CSVs of single-k runs merged with a leading k
column (kernel conv3d). Needs matplotlib; exits 0 with a note without it.
"""
import csv
import re
import sys


def points(rows):
    series = {}
    for r in rows:
        m = re.fullmatch(r"conv3d(?:-k(\d+))?", r.get("kernel", ""))
        if not m or r.get("valid", "1") in ("0", "false", "no"):
            continue
        k = m.group(1) or r.get("k") or r.get("param_conv3d_k")
        series.setdefault(r["variant"], []).append((int(k), 1e3 * float(r["median_s"])))
    return series


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        import matplotlib
    except ImportError:
        print("plot_video_conv3d.py: matplotlib not installed, no plot")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    series = points(rows)
    if not series:
        sys.exit("plot_video_conv3d.py: no valid conv3d rows in " + sys.argv[1])
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    w, h = rows[0].get("param_conv3d_width", "?"), rows[0].get("param_conv3d_height", "?")
    ax.set_xlabel("k (k x k x k kernel)")
    ax.set_ylabel(f"ms per call (k + 3 frames of {w} x {h} -> 4)")
    ax.set_yscale("log")
    ax.set_title("conv3d time against kernel size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print("wrote", sys.argv[2])


if __name__ == "__main__":
    main()
