#!/usr/bin/python3
"""Plots of a gluon run's CSV (`tessera run gluon --output FILE.h5` writes
FILE.csv beside the HDF5 file): the running sigma (the paper's Fig. 3, sigma
after each chunk of events over the final sigma, with its error band), the
normalised HT and min Delta R distributions and the gauge profile (Fig. 4).
Uses Debian's python3-matplotlib; without it, says so and exits 0.

usage: perf/scripts/plot_gluon.py FILE.csv [-o FILE.png] [--title T]
"""
import argparse
import csv
import math
import sys


def load(path):
    series = {}
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            need = {"series", "x_lo", "x_hi", "value", "error", "events"}
            if not reader.fieldnames or not need.issubset(reader.fieldnames):
                sys.exit(f"plot_gluon: {path} is not a tessera gluon run CSV (columns {sorted(need)})")
            for r in reader:
                try:
                    row = {k: (float(r[k]) if r[k] != "" else math.nan) for k in ("x_lo", "x_hi", "value", "error", "events")}
                except ValueError:
                    sys.exit(f"plot_gluon: {path}: malformed number in row {r}")
                series.setdefault(r["series"], []).append(row)
    except OSError as e:
        sys.exit(f"plot_gluon: cannot read {path}: {e.strerror}")
    if "sigma" not in series:
        sys.exit(f"plot_gluon: {path} has no sigma row")
    return series


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default=None, help="PNG file (default: the CSV's name with .png)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()
    s = load(args.csv)
    out = args.output or (args.csv[:-4] if args.csv.endswith(".csv") else args.csv) + ".png"
    try:
        import matplotlib
    except ImportError:
        print("plot_gluon: python3-matplotlib missing: no plot")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sigma = s["sigma"][0]
    fig, ax = plt.subplots(2, 3, figsize=(15, 8))

    # Fig. 3: sigma after N events over the final sigma, error band.
    a = ax[0][0]
    run = s.get("running_sigma", [])
    if run and sigma["value"] != 0:
        n = [r["x_hi"] for r in run]
        v = [r["value"] / sigma["value"] for r in run]
        e = [r["error"] / abs(sigma["value"]) for r in run]
        a.fill_between(n, [x - d for x, d in zip(v, e)], [x + d for x, d in zip(v, e)], alpha=0.3, step=None)
        a.plot(n, v, "o-", ms=3)
        a.axhline(1.0, color="gray", lw=0.8)
        a.set_xscale("log")
    a.set_xlabel("events")
    a.set_ylabel("sigma(N) / sigma")
    a.set_title(f"running sigma: {sigma['value']:.5g} +- {sigma['error']:.2g} pb")

    # Fig. 4: normalised distributions (1/sigma dsigma/dx), error bars.
    for a, name, label in ((ax[0][1], "ht", "HT [GeV]"), (ax[1][0], "min_dr", "min Delta R")):
        rows = s.get(name, [])
        if rows and sigma["value"] != 0:
            mid = [(r["x_lo"] + r["x_hi"]) / 2 for r in rows]
            v = [r["value"] / sigma["value"] for r in rows]
            e = [r["error"] / abs(sigma["value"]) for r in rows]
            a.errorbar(mid, v, yerr=e, fmt=".", ms=3, drawstyle="steps-mid")
            if name == "ht" and any(x > 0 for x in v):
                a.set_yscale("log")
        a.set_xlabel(label)
        a.set_ylabel(f"1/sigma dsigma/d({label.split(' [')[0]})")

    # Gauge check: the distribution of log10 |m(eps1 -> k1/E1)| / |m|, and
    # the paper's profile: the mean of |m'|^2/|m|^2 against log10 W_ME.
    a = ax[0][2]
    g = s.get("gauge_log10_ratio", [])
    if g:
        a.bar([r["x_lo"] for r in g], [r["value"] for r in g], width=[r["x_hi"] - r["x_lo"] for r in g], align="edge")
    a.set_xlabel("log10 |m(eps1 -> k1/E1)| / |m|")
    a.set_ylabel("fraction of sampled events")
    a.set_title("gauge check")
    a = ax[1][1]
    p = [r for r in s.get("gauge_profile", []) if r["events"] > 0 and r["value"] > 0]
    if p:
        a.errorbar([(r["x_lo"] + r["x_hi"]) / 2 for r in p], [r["value"] for r in p],
                   yerr=[r["error"] for r in p], fmt="s", ms=3)
        a.set_yscale("log")
    a.set_xlabel("log10 W_ME = log10 |m|^2")
    a.set_ylabel("mean |m'|^2 / |m|^2")
    a.set_title("gauge profile")
    a = ax[1][2]
    a.axis("off")
    a.text(0, 0.5, f"sigma = {sigma['value']:.6g} +- {sigma['error']:.2g} pb\n"
           f"{int(sigma['x_hi'])} events, {int(sigma['events'])} accepted", va="center")
    fig.suptitle(args.title or args.csv)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"plot_gluon: wrote {out}")


if __name__ == "__main__":
    main()
