"""Rerun the planner backtest: ``python bench/backtest/run.py`` (``make bench`` calls it).

Writes ``bench/results/backtest.json``, one PNG per trace (``bench/results/backtest-<trace>.png``)
and the "Planner backtest" section of ``bench/README.md`` (other sections are left alone).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from bench.backtest.backtest import (  # noqa: E402
    HINDSIGHT_LOOKBACK, LOOKBACK_DAYS, SEEN_OPT, WEEK, WEEKLY_OPT, Case, run_case, seedance,
)
from bench.backtest.cases import PRICE_SETS, REGION, SPOT_START, build_cases  # noqa: E402
from bench.backtest.interruptions import multi_node_rate  # noqa: E402
from bench.backtest.readme import replace_section  # noqa: E402

RESULTS = REPO / "bench" / "results"
MAIN_SPLIT = 0.4
OTHER_SPLITS = (0.3, 0.5)
SECTION = "planner-backtest"
log = logging.getLogger("backtest")


def chart(case: Case, run: dict, path: Path) -> None:
    t0 = run["t0"]
    res = {r.strategy: r for r in run["results"]}
    hours = np.arange(case.demand.size)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(11, 7), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    a1.plot(hours, case.demand, color="0.6", lw=0.7, label="demand (units)")
    a1.axvline(t0, color="k", ls=":", lw=1)
    for name, style in [("offline optimum (MILP)", "-"), ("Seedance", "-"), ("Cost-Explorer 30-day", "--")]:
        a1.step(hours[t0:], res[name].commitment, where="post", ls=style, lw=1.5, label=f"commitment: {name}")
    a1.set_ylabel("units (nodes)")
    a1.set_title(f"{case.name}: {case.description}; billed: last {run['hours']} h")
    a1.legend(loc="upper left", fontsize=8)
    for r in run["results"]:
        a2.plot(hours[t0:], np.cumsum(r.cost), lw=1.2, label=f"{r.strategy} ({r.total:,.0f})")
    a2.set_ylabel("cumulative cost, USD")
    a2.set_xlabel("trace hour")
    a2.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def rows(run: dict) -> list[dict]:
    opt = next(r for r in run["results"] if r.strategy.startswith("offline")).total
    weekly = next(r for r in run["results"] if r.strategy == WEEKLY_OPT).total
    seen = next(r for r in run["results"] if r.strategy == SEEN_OPT).total
    od = run["results"][0].total
    return [{
        "strategy": r.strategy, "cost": r.total, "savings_vs_ondemand": 1 - r.total / od,
        "ratio_to_optimum": r.total / opt, "ratio_to_lp": r.total / run["lp_bound"],
        "ratio_to_weekly": r.total / weekly, "ratio_to_seen": r.total / seen, "violations": r.violations,
        "max_commitment": float(r.commitment.max(initial=0.0)), "note": r.note,
    } for r in run["results"]]


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    RESULTS.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    cases = build_cases()
    out: dict = {"region": REGION, "spot_start": SPOT_START.isoformat(), "splits": {}}
    verdicts = []
    for split in (MAIN_SPLIT, *OTHER_SPLITS):
        per = {}
        for case in cases:
            run = run_case(case, split)
            per[case.name] = {"t0": run["t0"], "hours": run["hours"], "lp_bound": run["lp_bound"],
                              "milp_objective": run["milp_objective"], "rows": rows(run)}
            if split == MAIN_SPLIT:
                chart(case, run, RESULTS / f"backtest-{case.name}.png")
                opt = next(r for r in run["results"] if r.strategy.startswith("offline")).total
                shifted = [seedance(case, run["t0"], first=days * 24 if days else WEEK) for days in range(7)]
                out.setdefault("decision_days", {})[case.name] = [
                    {"days_later": days, "ratio_to_optimum": r.total / opt, "violations": r.violations}
                    for days, r in enumerate(shifted)]
            s = next(r for r in per[case.name]["rows"] if r["strategy"] == "Seedance")
            ce = next(r for r in per[case.name]["rows"] if r["strategy"].startswith("Cost-Explorer"))
            verdicts.append((split, case.name, s["ratio_to_optimum"], s["violations"], s["cost"] <= ce["cost"]))
            log.info("split %.0f%% %-18s Seedance/opt %.4f, violations %d", 100 * split, case.name,
                     s["ratio_to_optimum"], s["violations"])
        out["splits"][f"{split:.1f}"] = per
    out["price_sets"] = price_sensitivity()
    out["cases"] = {c.name: {"instance_type": c.instance_type, "gold": c.gold, "max_share": c.max_share,
                             "ondemand": c.ondemand, "reserved": c.reserved, "spot_mean": float(c.spot.mean()),
                             "lost_fraction": c.lost_fraction, "interruption_rate": c.interruption_rate,
                             "description": c.description, "sources": c.sources} for c in cases}
    (RESULTS / "backtest.json").write_text(json.dumps(out, indent=2) + "\n")
    replace_section(SECTION, render(cases, out, verdicts))
    log.info("backtest done in %.1f s", time.perf_counter() - started)
    return 0


def price_sensitivity() -> dict:
    """The same traces and code on other real prices, every split: Seedance, Cost-Explorer, optimum."""
    res: dict = {}
    for label, itype, term in PRICE_SETS:
        per: dict = {}
        for case in build_cases(itype, term):
            for split in (MAIN_SPLIT, *OTHER_SPLITS):
                rr = {r["strategy"]: r for r in rows(run_case(case, split))}
                per.setdefault(case.name, {})[f"{split:.1f}"] = {
                    "seedance": rr["Seedance"]["ratio_to_optimum"], "violations": rr["Seedance"]["violations"],
                    "seedance_weekly": rr["Seedance"]["ratio_to_weekly"],
                    "seedance_seen": rr["Seedance"]["ratio_to_seen"],
                    "seen_optimum": rr[SEEN_OPT]["ratio_to_optimum"],
                    "below_ce": rr["Seedance"]["cost"] <= rr["Cost-Explorer 30-day"]["cost"],
                    "plain": rr["plain 30-day re-plan"]["ratio_to_optimum"],
                    "hindsight": rr[HINDSIGHT_LOOKBACK]["ratio_to_optimum"],
                    "hindsight_lookback": rr[HINDSIGHT_LOOKBACK]["note"],
                    "seedance_hindsight": rr["Seedance"]["cost"] / rr[HINDSIGHT_LOOKBACK]["cost"],
                    "ondemand": case.ondemand, "reserved": case.reserved, "spot_mean": float(case.spot.mean()),
                    "lost_fraction": case.lost_fraction}
        res[label] = per
        log.info("prices %-20s %s", label, "  ".join(
            f"{n} {v['0.4']['seedance']:.3f}" for n, v in per.items()))
    return res


def render_prices(cases: list[Case], out: dict) -> list[str]:
    names = [c.name for c in cases]
    splits = [f"{s:.1f}" for s in (OTHER_SPLITS[0], MAIN_SPLIT, OTHER_SPLITS[1])]
    lines = ["### Other prices (same code, no retuning)", "",
             "Seedance × optimum at 30 / 40 / 50% billed (and, in brackets, × the weekly-step optimum at 40%)",
             "when every fleet is priced as another real 1-GPU type (its eu-west-1 on-demand, no-upfront",
             "standard RI of the term shown, spot history and Spot Advisor band) or on the 3-year RI; each run",
             "also checks zero violations and never above Cost-Explorer.", "",
             "| Prices | " + " | ".join(names) + " | runs meeting all three |",
             "|---|" + "---:|" * len(names) + "---:|"]
    for label, per in out["price_sets"].items():
        cells, met, total = [], 0, 0
        for n in names:
            if n not in per:
                cells.append("—")
                continue
            cells.append(" / ".join(f"{per[n][s]['seedance']:.3f}" for s in splits)
                         + f" ({per[n][splits[1]]['seedance_weekly']:.3f})")
            for s in splits:
                v = per[n][s]
                total += 1
                met += v["seedance"] <= 1.05 and v["violations"] == 0 and v["below_ce"]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {met} of {total} |")
    bad = [(label, n, s, v) for label, per in out["price_sets"].items() for n in names if n in per for s, v in per[n].items()
           if v["violations"] or not v["below_ce"]]
    lines += ["", "Zero cap violations and never costlier than Cost-Explorer in every run." if not bad else
              "Runs with cap violations or above Cost-Explorer: " + ", ".join(
                  f"{label} {n} at {float(s):.0%}" for label, n, s, _ in bad) + ".", ""]
    days = ", ".join(f"{d}" for d in LOOKBACK_DAYS if d)
    lines += ["Whose gap it is, at 30 / 40 / 50% billed, against two references that no strategy without",
              "look-ahead is known to reach:", "",
              "- **(a)** Seedance × the weekly-step optimum that never holds more than the peak seen before each",
              "  decision: a lower bound for any strategy that never reserves capacity it has not yet seen used",
              "  (Seedance is one), reached only with a perfect forecast of the demand below that peak; in",
              "  brackets, that bound × the offline optimum at 40%. A figure near 1 means the gap is the future.",
              f"- **(b)** Seedance × the cheapest plain re-plan among lookbacks of {days} days and the whole",
              "  history, the lookback picked *after* billing the window (which flatters it); in brackets, the",
              "  lookback picked at 40%. At or below 1, no fixed lookback, however chosen, beat Seedance; well",
              "  above 1, a plain rule did better and the gap is at least partly Seedance's own.", "",
              "A gap to (a) that (b) does not show is what a perfect forecast knows and the history does not",
              "(which weeks jobs run, whether a new level stays).", "",
              "(a)", ""]
    lines += _ratio_table(out, names, splits, "seedance_seen", lambda v: f"{v['seen_optimum']:.3f}")
    lines += ["", "(b)", ""]
    lines += _ratio_table(out, names, splits, "seedance_hindsight",
                          lambda v: v["hindsight_lookback"].removeprefix("last "))
    lines.append("")
    return lines


def _ratio_table(out: dict, names: list[str], splits: list[str], key: str, bracket: Callable[[dict], str]) -> list[str]:
    """One row per price set: ``key`` at each split per trace, and ``bracket`` of the main split's run."""
    lines = ["| Prices | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for label, per in out["price_sets"].items():
        cells = []
        for n in names:
            if n not in per or key not in per[n][splits[1]]:
                cells.append("—")
                continue
            cells.append(" / ".join(f"{per[n][s][key]:.3f}" for s in splits) + f" ({bracket(per[n][splits[1]])})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def render(cases: list[Case], out: dict, verdicts: list) -> str:
    drops, inst_h, rate = multi_node_rate()
    lines = [
        "## Planner backtest (`bench/backtest/run.py`)",
        "",
        "Real demand: Alibaba GPU traces (v2023 hourly GPUs requested by QoS class; v2025 DLRM inference GPU",
        "nodes), in units of 1-GPU nodes; and, **held out**, the same DLRM service's CPU nodes (`v2025-DLRM-CN`,",
        "instances present, priced as c5.2xlarge), added after the planner code was frozen for this round and",
        "never used to choose anything in it. Real prices: the bundled catalog's eu-west-1 rows (on-demand and",
        "1-year standard no-upfront RI, ec2instances.info data) and the eu-west-1 spot price history",
        f"(`aws_spot_prices/`, trace hour 0 = {SPOT_START:%Y-%m-%d} 00:00 UTC, mean of the AZs, forward-filled).",
        "Interruptions: the type's Spot Advisor band mapped to an hourly rate (`seedance/planner/spot.py`;",
        f"the open `>20%` band uses the SkyPilot 4-node preemption traces: {drops:.0f} drops / {inst_h:,.0f}",
        f"instance-hours = {rate:.3f}/h — the count traces, so the 1-node sign question does not arise).",
        "",
        "**Rules (all strategies).** The last 40% of each trace is billed hour by hour (also 30% and 50% below).",
        "Strategies re-decide every 168 h from data before that hour; commitments only grow; **every committed",
        "unit is charged the reserved rate from its purchase hour to the end of the billed window**, used or",
        "not; demand above the commitment runs as an Auto Scaling group deploys it: the on-demand base is the",
        "commitment (a gold fleet's at least 1 node), and above the base the strategy's spot share runs on",
        "spot, the rest on-demand; spot costs the hour's real price / (1 − lost share). SLA-cap violation =",
        "an hour with spot above `maxShare` of the capacity above the commitment, or a gold fleet without an",
        "on-demand node.",
        "Strategies: all on-demand; Cost-Explorer-style (count that maximised savings over the last 30 days",
        "at on-demand prices, no spot); naive max-spot (everything on spot); plain 30-day re-plan (exact",
        "optimum over the last 30 days at the blended rate, no forecast — for reference); the same re-plan",
        "with the lookback (3, 7, 14, 30 or 56 days, or the whole history) that turned out cheapest on the",
        "billed window (chosen in hindsight, so a reference, not a strategy); Seedance",
        "(`commit_now` on `commitment_forecast`, spot share from `decide_spot`); offline optimum (perfect",
        "foresight, integer daily commitment steps, same caps and a gold group's spot only above its base;",
        "`scipy.optimize.milp`/HiGHS) and its LP",
        "relaxation (lower bound).",
        "",
        "**What Seedance is told, and why that is not look-ahead.** (1) *Commitment horizon*: a unit bought",
        "at hour *s* is charged to the end of the billed window, so its decision is evaluated over the",
        "`T − s` hours left (`FleetInputs.horizon_hours`; the planner's default is the term, 8,760 h for",
        "1y). That is contract information, known when buying, not future demand. (2) *Billing rule*:",
        "the decision values uncovered demand exactly as `bill` charges it (`reserved.Uncovered`: the same",
        "spot share, effective spot price incl. interruption losses, and the gold fleet's on-demand node,",
        "which makes a gold fleet's first node cost the on-demand rate, not the blend). (3) *Commitment",
        "view*: `min(forecast, last day repeated)` on data strictly before the decision hour; the",
        "forecast's level is the median of the last 7 daily means. For a fleet of jobs (the workload the",
        "policy declares: training, fine-tuning or batch; here Burstable as finetune and BE as training)",
        "the view is also capped by the last 4 weeks repeated: a job ends, so a new level is not a service",
        "that stays.",
        "",
    ]
    main = out["splits"][f"{MAIN_SPLIT:.1f}"]
    lines += ["### Last 40% billed", "",
              "| Trace | Strategy | Cost (USD) | Savings vs on-demand | × optimum | × LP bound | × weekly-step optimum | Cap violations (h) |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for c in cases:
        for r in main[c.name]["rows"]:
            bold = "**" if r["strategy"] == "Seedance" else ""
            lines.append(f"| {c.name} | {bold}{r['strategy']}{bold} | {r['cost']:,.0f} | {r['savings_vs_ondemand']:.1%} | "
                         f"{r['ratio_to_optimum']:.4f} | {r['ratio_to_lp']:.4f} | {r['ratio_to_weekly']:.4f} | {r['violations']} |")
    lines += ["", "Fleets: " + "; ".join(
        f"{c.name} = {c.description}, {c.instance_type} (on-demand {c.ondemand:g}, RI {c.reserved:g}, spot mean "
        f"{c.spot.mean():.3f} USD/h), maxShare {c.max_share:g}{', gold' if c.gold else ''}" for c in cases) + ".", ""]
    lines += ["### Other split points (same code, no retuning)", "",
              "| Billed | Trace | Seedance × optimum | × LP bound | × weekly-step optimum | Violations | CE × optimum | plain re-plan × optimum | hindsight-lookback re-plan × optimum |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for split in OTHER_SPLITS:
        per = out["splits"][f"{split:.1f}"]
        for c in cases:
            rr = {r["strategy"]: r for r in per[c.name]["rows"]}
            s = rr["Seedance"]
            lines.append(f"| last {split:.0%} | {c.name} | {s['ratio_to_optimum']:.4f} | {s['ratio_to_lp']:.4f} | "
                         f"{s['ratio_to_weekly']:.4f} | "
                         f"{s['violations']} | {rr['Cost-Explorer 30-day']['ratio_to_optimum']:.4f} | "
                         f"{rr['plain 30-day re-plan']['ratio_to_optimum']:.4f} | "
                         f"{rr[HINDSIGHT_LOOKBACK]['ratio_to_optimum']:.4f} ({rr[HINDSIGHT_LOOKBACK]['note']}) |")
    lines += ["", "### Other decision days (same code, no retuning)", "",
              "Seedance × optimum at 40% billed with its weekly decisions moved 0–6 days later (the first",
              "decision still at the window's start, the second that many days after it, then weekly): the day",
              "of the week a re-plan runs changes what it has seen when a level appears.", "",
              "| Trace | " + " | ".join(f"+{d} d" for d in range(7)) + " | within 5% | violations |",
              "|---|" + "---:|" * 9]
    for c in cases:
        runs = out["decision_days"][c.name]
        lines.append(f"| {c.name} | " + " | ".join(f"{r['ratio_to_optimum']:.4f}" for r in runs)
                     + f" | {sum(r['ratio_to_optimum'] <= 1.05 for r in runs)} of 7 | {sum(r['violations'] for r in runs)} |")
    lines += [""] + render_prices(cases, out)
    ok = [v for v in verdicts if v[2] <= 1.05 and v[3] == 0 and v[4]]
    bad = [v for v in verdicts if v not in ok]
    lines += ["", "### Against the target (within 5% of the optimum, zero violations, never above Cost-Explorer)", "",
              f"{len(ok)} of {len(verdicts)} trace × split runs meet all three. Zero cap violations and never costlier",
              "than Cost-Explorer hold in every run." if all(v[3] == 0 and v[4] for v in verdicts) else
              "Some runs violate caps or cost more than Cost-Explorer (see the tables).", ""]
    if bad:
        lines.append("Short of 5%: " + ", ".join(f"{n} at {s:.0%} ({r:.3f})" for s, n, r, _, _ in bad) + ".")
        lines += [
            "",
            "Planner changes adopted after measuring them on all 15 runs (× optimum, 30 / 40 / 50%):",
            "",
            "- *Commitment view capped by the last day instead of the last week.* A week containing a",
            "  level shift replayed its pre-shift hours as a drop at the start of every future week, so a",
            "  new level was only bought a week after the forecast's own level (median of 7 daily means)",
            "  accepted it. LS 1.021 / 1.020 / 1.024 → 1.017 / 1.013 / 1.018; DLRM 1.004 / 1.004 / 1.005 →",
            "  1.001 / 1.001 / 1.002; Guaranteed 1.091 / 1.115 / 1.105 → 1.091 / 1.081 / 1.071; Burstable",
            "  1.255 / 1.255 / 1.246 → 1.249 / 1.255 / 1.244; BE 1.000. No run got worse.",
            "- *Gold on-demand floor billed exactly in the decision.* Alone (with the old view) it moved",
            "  Guaranteed at 40% from 1.115 to 1.081 and nothing else; with the new view it changes no",
            "  figure here (the view already buys those layers). Kept because the decision must optimise",
            "  the cost actually billed.",
            "- *Horizon.* The backtest already charged commitments to the window's end and evaluated them",
            "  on the remaining hours; evaluating on 8,760 h instead changes no ratio with the new view.",
            "- *Fleets of jobs capped by the last 4 weeks repeated* (stop 20). A training, fine-tuning or",
            "  batch fleet's new level is the jobs running now, and jobs end; a unit is valued at the share",
            "  of the last 4 weeks it was busy, as the plain 30-day re-plan does, while services keep the",
            "  view above. Burstable 1.249 / 1.255 / 1.244 → 1.032 / 1.030 / 1.028; BE 1.000 unchanged; the",
            "  service traces are not affected. On the other prices: Burstable on g5.2xlarge 1.259 / 1.258 /",
            "  1.257 → 1.012 / 1.011 / 1.010, and on the 3-year RI 1.182 / 1.197 / 1.151 → 1.188 / 1.174 /",
            "  1.161; BE on the 3-year RI gets worse, 1.008 / 1.004 / 1.023 → 1.049 / 1.044 / 1.063 (a",
            "  cheap 3-year unit pays at ~45% use, and the 4-week view misses BE's growth). This rule was",
            "  chosen after seeing Burstable's gap below; what it reads is the workload the policy declares,",
            "  not the test windows, but it was measured after the fact, so count it as fitted to these",
            "  traces until other job traces confirm it.",
            "- *Gold groups billed as deployed* (stop 22; a correction, not a tuning). A gold group's",
            "  on-demand base is max(commitment, 1) and its spot share applies above the base; the billing",
            "  rule used to let spot take its share of all the capacity above the commitment while one node",
            "  stayed on-demand, which no group deploys. The decision, every strategy's bill and the MILP",
            "  now follow the group. Only hours with no unit committed change: Guaranteed 1.091 / 1.081 /",
            "  1.071 → 1.106 / 1.090 / 1.075 (a new service costs more before its first reservation; the",
            "  optimum reserves at once), its never-above-the-seen-peak bound 1.057 / 1.047 / 1.037 →",
            "  1.071 / 1.056 / 1.041; Guaranteed on g4dn.xlarge prices at 30% goes from 1.060 to 1.074;",
            "  no other figure moves. In the product it makes a gold fleet reserve the node its group runs",
            "  on-demand at any spot share (it used to value it at the blend).",
            "- *Commitment view capped by the last day or, where higher, the last week less the last day's",
            "  fall below the same day a week earlier* (stop 35; a fix, not a tuning). An audit found the",
            "  last day alone made a plan depend on its weekday: demand of 8 on weekdays and 4 at weekends,",
            "  re-planned on Mondays, reserved 4 for ever (the Sunday read as every coming day's level);",
            "  Tuesday to Saturday reserved 8. These traces have no such weekly pattern, and the change",
            "  costs LS 1.0165 / 1.0132 / 1.0176 → 1.0167 / 1.0159 / 1.0196 (1-year, own type; +0.001 to",
            "  +0.004 on the other 1-year types, −0.002 on the 3-year ones); no other trace moves. Over",
            "  the seven decision days (table above) LS averages 1.0199 → 1.0219, and on 3-year prices BE",
            "  1.0545 → 1.0516.",
            "",
            "Where the rest of the gap is, measured (× offline optimum at 30 / 40 / 50% billed):",
            "",
            "| Trace | weekly-step optimum | weekly-step optimum, never above the seen peak | Seedance × that bound "
            "| Seedance × hindsight-lookback re-plan |",
            "|---|---:|---:|---:|---:|",
        ]
        for c in cases:
            cells = []
            for name, key in ((WEEKLY_OPT, "ratio_to_optimum"), (SEEN_OPT, "ratio_to_optimum"), ("Seedance", "ratio_to_seen"),
                              ("Seedance", HINDSIGHT_LOOKBACK)):
                vals = []
                for sp in (OTHER_SPLITS[0], MAIN_SPLIT, OTHER_SPLITS[1]):
                    rr = {r["strategy"]: r for r in out["splits"][f"{sp:.1f}"][c.name]["rows"]}
                    v = rr[name][key] if key in rr[name] else rr[name]["cost"] / rr[key]["cost"]
                    vals.append(f"{v:.3f}")
                cells.append(" / ".join(vals))
            lines.append(f"| {c.name} | " + " | ".join(cells) + " |")
        lines += [
            "",
            "The *weekly-step optimum* has perfect foresight but buys only at the weekly decision points; the",
            "*never above the seen peak* bound also never holds more units than the peak demand seen before the",
            "decision (rounded): the best a strategy that does not reserve capacity it has never seen used could",
            "reach with a perfect forecast (Seedance is one: `tests/backtest/` checks the bound against it on",
            "random demand). *Guaranteed* appears from nothing about 30 days before the end (1",
            "node for ~90 h, then 2): even that bound is 4–7% above the optimum, because the optimum reserves",
            "the node the day it appears and a weekly strategy first sees it up to 6 days later; at 30% billed",
            "the 5% target is out of reach for any strategy that does not reserve unseen capacity. Seedance",
            "loses ~3% more because the second node, seen for 17–63 h at the decision after it appears, is",
            "below the forecast's level (the median of 7 daily means) and waits a week; a plain re-plan on",
            "the last 3 days buys it at once, which at 30% billed is 3% cheaper (the last column: the",
            "cheapest fixed lookback, picked in hindsight; at 40 and 50% none beat Seedance on any trace).",
            "Buying on little evidence pays here because the service appears in the window's last month, and",
            "a unit is charged only to the window's end: a wrong purchase costs at most a month of the",
            "reserved rate. In production it is charged for its term (8,760 or 26,280 h), against which a",
            "week's wait costs little, so Seedance asks the same evidence (the median of 7 days) whatever",
            "the horizon.",
            "*Burstable* jumps",
            "from 0 to 8 nodes and holds ~370 h, collapses to 0–2 for ~300 h and returns; at the decision",
            "after the jump its demand looks exactly like Guaranteed's (a new, steady level), and silver's",
            "spot share makes a reserved node pay only above ~92% use, so buying the 8 units lost ~25%.",
            "What tells the two apart is not the demand but the workload: Burstable runs as fine-tuning",
            "jobs, Guaranteed as an inference service (the jobs view above). For the services, rules",
            "measured and rejected: waiting ~4 weeks (the plain 30-day re-plan) makes Guaranteed 1.31–1.39",
            "and LS 1.07; trusting a new level after 2 days gave Guaranteed 1.057 / 1.047 / 1.071 under the",
            "earlier billing rule (stop 20, before gold groups were billed as deployed), and its threshold",
            "could only be chosen by looking at these windows (1 day: LS 1.07 at 50%).",
        ]
    lines += ["", "Charts: " + ", ".join(f"`bench/results/backtest-{c.name}.png`" for c in cases) +
              " (demand, commitments and cumulative cost). Raw numbers: `bench/results/backtest.json`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
