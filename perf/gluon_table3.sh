#!/bin/sh
# The paper's Table 3: sigma(gg -> (n-2) g) at sqrt(S) = 14 TeV, preset table3
# (mu = MZ; pT > 20 GeV, |eta| < 2.5, dR > 0.4), one run per n, with the
# event counts and the run time (the cost of each sigma).
# Usage: perf/gluon_table3.sh BUILD_DIR [EVENTS] [OUT_DIR]
#   BUILD_DIR  a build with the tessera executable (e.g. build/cuda)
#   EVENTS     events per n (default 1e10, the paper's order; 1e10 at n = 8
#              takes ~30 s on an H100 in double)
# Environment: NS (default "4 5 6 7 8"), PDF (default lh-lo-toy, the built-in
# LO set; cteq6l1 or a path for the paper's set, which the user supplies),
# PRECISION (default double), VARIANT (default: what the library dispatches to),
# SEED (default 1).
# Writes OUT_DIR/gluon_sigma_n<N>.json per n and OUT_DIR/gluon_table3.csv, and
# prints the table with the paper's values beside ours.
set -eu
build=${1:?usage: perf/gluon_table3.sh BUILD_DIR [EVENTS] [OUT_DIR]}
events=${2:-1e10}
out=${3:-gluon_table3}
mkdir -p "$out"
tessera="$build/src/tessera"
variant_opt=""
[ -n "${VARIANT:-}" ] && variant_opt="--variant $VARIANT"
for n in ${NS:-4 5 6 7 8}; do
  # One timed run: its wall time is the cost of this sigma.
  # shellcheck disable=SC2086
  "$tessera" run gluon --n "$n" --events "$events" --preset table3 --pdf "${PDF:-lh-lo-toy}" \
    --precision "${PRECISION:-double}" --seed "${SEED:-1}" --repeats 1 --warmup 0 $variant_opt \
    --json "$out/gluon_sigma_n$n.json" | tail -n 1
done
/usr/bin/python3 - "$out" "${PDF:-lh-lo-toy}" ${NS:-4 5 6 7 8} <<'EOF'
import csv, json, os, sys
out, pdf, ns = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3:]]
# Giele, Stavenga, Winter, Table 3 (CTEQ6L1, 10^9 sweeps): sigma, error (pb),
# events generated and accepted (units of 10^10), COMIX full colour.
paper = {4: (2.32421e8, 0.00047e8, 30.6, 19.6848, 2.32584e8), 5: (1.4353e7, 0.0011e7, 20.4, 11.2939, 1.4348e7),
         6: (2.84780e6, 0.00096e6, 14.4, 6.98918, 2.85714e6), 7: (6.356e5, 0.012e5, 10.8, 4.49985, 6.422e5),
         8: (1.608e5, 0.011e5, 8.40, 2.93316, 1.670e5)}
rows = []
for n in ns:
    d = json.load(open(os.path.join(out, f"gluon_sigma_n{n}.json")))
    r = d["results"][0]
    o = r["observables"]
    rows.append(dict(n=n, variant=r["variant"], sigma_pb=o["sigma"]["value"], error_pb=o["sigma"]["error"],
                     generated=o["events_generated"]["value"], accepted=o["events_accepted"]["value"],
                     seconds=r["median_s"], ns_per_event=1e9 * o["time_per_event"]["value"]))
with open(os.path.join(out, "gluon_table3.csv"), "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()) + ["pdf"])
    w.writeheader()
    for r in rows:
        w.writerow(dict(r, pdf=pdf))
print(f"\nsigma(gg -> (n-2) g), sqrt(S) = 14 TeV, preset table3, PDF {pdf}; paper: CTEQ6L1")
print("| n | sigma (pb) | rel. error | accepted / generated | events | run time | paper sigma (pb) | paper rel. error | paper accepted / generated | paper COMIX (pb) |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    p = paper.get(r["n"])
    ps = f"{p[0]:.5e} | {p[1] / p[0]:.1e} | {p[3] / p[2]:.3f} | {p[4]:.5e}" if p else "- | - | - | -"
    print(f"| {r['n']} | {r['sigma_pb']:.5e} +- {r['error_pb']:.2e} | {r['error_pb'] / r['sigma_pb']:.1e} | "
          f"{r['accepted'] / r['generated']:.3f} | {r['generated']:.2e} | {r['seconds']:.2f} s | {ps} |")
EOF
