#!/usr/bin/env python3
"""Weft's stateful exploration side by side with SPIN, in one run.

For each model NAME of benchmarks/stateful/ (NAME.weft and its Promela twin
NAME.pml) this runs, one after the other on this machine:

  * SPIN end to end, with its partial-order reduction and with -DNOREDUCE:
    `spin -a NAME.pml`, `gcc -O2 [-DNOREDUCE] -DSAFETY -o pan pan.c`,
    `./pan -mDEPTH`, timing the three steps together (wall clock) and taking
    the largest peak RSS of the three (/usr/bin/time -f %M);
  * `weft check NAME.weft --algo stateful --stateful-por X --json` for X in
    spor, de, dl, none: wall time of the process (from the model text to the
    verdict, parsing included) and its peak RSS; and dl with
    --no-race-check, which checks what SPIN checks (assertions and
    deadlocks, not data races);
  * `weft check NAME.weft --algo sdpor|optimal --timeout T --json`: what the
    stateless modes say within their budget.

It prints a markdown table (one row per model and run) and writes the same
rows to a TSV file. A run that fails (a weft error, a crash, a timeout, a
JSON that does not parse, SPIN errors) keeps its row, with the error in the
`note` column: no row is dropped.

Usage:
  scripts/stateful-vs-spin.py [--weft BINARY] [--models a,b] [--tsv FILE]
                              [--stateless-timeout 20s] [--depth N]

Without --weft it builds one: `go build -o /tmp/weft-stateful ./cmd/weft`.
It stops at once, with a message, when spin, gcc or /usr/bin/time is missing
(`apt-get install -y spin gcc time`).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS_DIR = os.path.join(ROOT, "benchmarks", "stateful")
TIME = "/usr/bin/time"
STATEFUL_PORS = ["spor", "de", "dl", "none"]
# Weft's stateful runs: each reduction as weft check runs it (data races
# checked), then the default reduction checking what SPIN checks
# (assertions and deadlocks, no data races: --no-race-check).
WEFT_CONFIGS = [(p, ["--stateful-por", p]) for p in STATEFUL_PORS] + [
    ("dl no-race-check", ["--stateful-por", "dl", "--no-race-check"])]
WEFT_LABELS = [c for c, _ in WEFT_CONFIGS]
STATELESS = ["sdpor", "optimal"]
COLUMNS = ["model", "tool", "config", "verdict", "complete", "states", "transitions",
           "matched", "executions", "bugs", "time_s", "peak_rss_mb", "note"]


class Missing(Exception):
    """A tool the comparison needs is not installed."""


def check_tools():
    missing = [t for t in ("spin", "gcc") if shutil.which(t) is None]
    if not os.access(TIME, os.X_OK):
        missing.append(TIME + " (Debian package `time`)")
    if missing:
        raise Missing("missing: " + ", ".join(missing) +
                      "; install them (as root: apt-get install -y spin gcc time) and run again")


def timed(cmd, cwd=None, timeout=None):
    """Runs cmd under /usr/bin/time; returns (returncode, stdout, stderr,
    wall seconds, peak RSS in KB or None). returncode is None on a timeout."""
    with tempfile.NamedTemporaryFile(prefix="rss-", suffix=".txt", delete=False) as f:
        rss_path = f.name
    start = time.monotonic()
    try:
        p = subprocess.run([TIME, "-f", "%M", "-o", rss_path] + cmd, cwd=cwd, capture_output=True,
                           text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    wall = time.monotonic() - start
    rss = None
    try:
        with open(rss_path) as f:
            lines = [l.strip() for l in f if l.strip()]
        # time writes "Command exited with non-zero status N" before the
        # figure when the command fails: the figure is the last line.
        if lines and lines[-1].isdigit():
            rss = int(lines[-1])
    finally:
        os.unlink(rss_path)
    return rc, out, err, wall, rss


def mb(kb):
    return "" if kb is None else "%.1f" % (kb / 1024.0)


def first_line(text, limit=160):
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:limit]
    return ""


def spin_row(name, pml, reduce, depth, pan_args, timeout):
    """SPIN end to end on pml, in a fresh directory."""
    config = "POR" if reduce else "-DNOREDUCE"
    row = {"model": name, "tool": "spin", "config": config}
    work = tempfile.mkdtemp(prefix="spin-" + name + "-")
    try:
        shutil.copy(pml, work)
        base = os.path.basename(pml)
        flags = ["-O2", "-DSAFETY"] + ([] if reduce else ["-DNOREDUCE"])
        total, peak = 0.0, 0
        while True:
            steps = [["spin", "-a", base], ["gcc"] + flags + ["-o", "pan", "pan.c"], ["./pan", "-m%d" % depth] + pan_args]
            total, peak, out, walls = 0.0, 0, "", []
            for cmd in steps:
                rc, out, err, wall, rss = timed(cmd, cwd=work, timeout=timeout)
                total += wall
                walls.append(wall)
                peak = max(peak, rss or 0)
                if rc is None:
                    row.update(verdict="error", note="%s: killed after %ds" % (cmd[0], timeout))
                    return row
                if rc != 0:
                    row.update(verdict="error", note="%s exited %d: %s" % (" ".join(cmd), rc,
                                                                         first_line(err or out)))
                    return row
            # pan says this when the DFS stack was cut: the search was
            # not exhaustive. Retry deeper rather than report a partial count.
            if "max search depth too small" in out and depth < 10 ** 7:
                depth *= 10
                continue
            break
        m = re.search(r"errors:\s*(\d+)", out)
        stored = re.search(r"(\d+)\s+states, stored", out)
        matched = re.search(r"(\d+)\s+states, matched", out)
        trans = re.search(r"(\d+)\s+transitions", out)
        if not (m and stored and trans):
            row.update(verdict="error", note="pan's output not understood: " + first_line(out))
            return row
        errors = int(m.group(1))
        notes = ["spin %.2fs + gcc %.2fs + pan %.2fs (pan %s)" % (walls[0], walls[1], walls[2],
                                                                 " ".join(["-m%d" % depth] + pan_args))]
        if "max search depth too small" in out:
            notes.append("depth limit reached: not exhaustive")
        row.update(verdict="verified" if errors == 0 else "errors",
                   complete="true" if "max search depth too small" not in out else "false",
                   states=stored.group(1), transitions=trans.group(1),
                   matched=matched.group(1) if matched else "", bugs=str(errors),
                   time_s="%.2f" % total, peak_rss_mb=mb(peak), note="; ".join(notes))
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def weft_row(name, weft, model, algo, extra, config, timeout):
    row = {"model": name, "tool": "weft", "config": config}
    cmd = [weft, "check", model, "--algo", algo, "--json", "--quiet"] + extra
    rc, out, err, wall, rss = timed(cmd, timeout=timeout)
    row.update(time_s="%.2f" % wall, peak_rss_mb=mb(rss))
    if rc is None:
        row.update(verdict="error", note="killed after %ds (weft did not stop at its own budget)" % timeout)
        return row
    try:
        d = json.loads(out)
    except ValueError:
        row.update(verdict="error", note="exit %d, no JSON: %s" % (rc, first_line(err or out)))
        return row
    if isinstance(d, list):
        d = d[0] if d else {}
    status = d.get("status", "?")
    row.update(verdict=status, complete=str(d.get("complete", "")).lower(),
               executions=str(d.get("executions", "")))
    bugs = d.get("bugs") or []
    kinds = {}
    for b in bugs:
        kinds[b.get("kind", "?")] = kinds.get(b.get("kind", "?"), 0) + 1
    omitted = len(d.get("omitted_bugs") or [])
    row["bugs"] = str(len(bugs) + omitted)
    notes = []
    if kinds:
        notes.append(", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())))
    if d.get("stopped"):
        notes.append("stopped: " + d["stopped"])
    if d.get("error"):
        notes.append("error: " + first_line(d["error"]))
    for diag in d.get("diagnostics") or []:
        if diag.get("severity", "error") == "error":
            notes.append("%s: %s" % (diag.get("code", "?"), first_line(diag.get("message", ""))))
    st = d.get("stateful")
    if st:
        row.update(states=str(st.get("states", "")), transitions=str(st.get("transitions", "")),
                   matched=str(st.get("matched", "")))
        if st.get("retraversals"):
            notes.append("retraversals %d" % st["retraversals"])
        if st.get("miss_probability"):
            notes.append("miss probability %.3g" % st["miss_probability"])
    elif algo == "stateful" and status not in ("input-error", "internal-error"):
        notes.append("no \"stateful\" object in the JSON")
    if rc not in (0, 1, 3) and not d.get("error"):
        notes.append("exit %d: %s" % (rc, first_line(err)))
    row["note"] = "; ".join(notes)
    return row


def parse_duration(s):
    m = re.fullmatch(r"(\d+)(ms|s|m)?", s)
    if not m:
        raise argparse.ArgumentTypeError("want a duration like 20s, 500ms or 2m, not %r" % s)
    n, unit = int(m.group(1)), m.group(2) or "s"
    return {"ms": n / 1000.0, "s": float(n), "m": 60.0 * n}[unit]


def models_in(directory, only):
    names = sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".weft"))
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise SystemExit("stateful-vs-spin: no such model in %s: %s" % (directory, ", ".join(unknown)))
        names = [n for n in names if n in only]
    return names


def markdown(rows):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [str(r.get(c, "")).replace("|", "\\|") for c in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows):
    """One line per model: states stored (and seconds end to end) of each
    stateful run, SPIN's and Weft's side by side, then whether each Weft
    reduction meets the issue's two goals against SPIN with its reduction:
    no more states, less time."""
    configs = [("spin", "POR"), ("spin", "-DNOREDUCE")] + [("weft", "stateful " + p) for p in WEFT_LABELS]
    heads = ["SPIN POR", "SPIN NOREDUCE"] + ["weft " + p for p in WEFT_LABELS]
    by = {(r["model"], r["tool"], r["config"]): r for r in rows}
    models = []
    for r in rows:
        if r["model"] not in models:
            models.append(r["model"])
    lines = ["| model | " + " | ".join(heads) + " |", "|" + "---|" * (len(heads) + 1)]
    met = {p: [0, 0] for p in WEFT_LABELS}
    for m in models:
        cells = []
        for key in configs:
            r = by.get((m,) + key)
            if r is None:
                cells.append("")
            elif r.get("states"):
                cells.append("%s (%ss)" % (r["states"], r.get("time_s", "?")))
            else:
                cells.append(r.get("verdict", "?"))
        lines.append("| %s | %s |" % (m, " | ".join(cells)))
        spin = by.get((m, "spin", "POR"))
        for p in WEFT_LABELS:
            w = by.get((m, "weft", "stateful " + p))
            ok = spin and w and spin.get("states") and w.get("states") and w.get("verdict") == "verified"
            if ok and int(w["states"]) <= int(spin["states"]):
                met[p][0] += 1
            if ok and float(w["time_s"]) < float(spin["time_s"]):
                met[p][1] += 1
    lines.append("")
    for p in WEFT_LABELS:
        lines.append("weft %s: verified with no more states than SPIN's POR on %d of %d models, "
                     "in less time on %d of %d" % (p, met[p][0], len(models), met[p][1], len(models)))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weft", help="the weft binary (default: go build -o /tmp/weft-stateful ./cmd/weft)")
    ap.add_argument("--dir", default=MODELS_DIR, help="the models' folder (default: benchmarks/stateful)")
    ap.add_argument("--models", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--tsv", default="stateful-vs-spin.tsv", help="where to write the TSV (default: %(default)s)")
    ap.add_argument("--stateless-timeout", default="20s", type=parse_duration,
                    help="weft's --timeout for sdpor and optimal (default: 20s)")
    ap.add_argument("--stateful-timeout", default="120s", type=parse_duration,
                    help="weft's --timeout for the stateful runs (default: 120s)")
    ap.add_argument("--depth", default=100000, type=int, help="pan -m, raised tenfold while pan says it is too small")
    ap.add_argument("--pan-args", default="",
                    help="more arguments for pan, space-separated (e.g. \"-w16\": a 2^16-slot hash table "
                         "instead of pan's default 2^24, 128 MB, which dominates its memory and start-up)")
    ap.add_argument("--no-stateless", action="store_true", help="skip the sdpor and optimal runs")
    args = ap.parse_args(argv)

    try:
        check_tools()
    except Missing as e:
        print("stateful-vs-spin: %s" % e, file=sys.stderr)
        return 2

    weft = args.weft
    if not weft:
        weft = "/tmp/weft-stateful"
        print("building %s …" % weft, file=sys.stderr)
        p = subprocess.run(["go", "build", "-o", weft, "./cmd/weft"], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            print("stateful-vs-spin: go build failed:\n" + p.stderr, file=sys.stderr)
            return 2
    weft = os.path.abspath(weft)
    if not os.access(weft, os.X_OK):
        print("stateful-vs-spin: %s is not an executable weft" % weft, file=sys.stderr)
        return 2

    only = [m for m in args.models.split(",") if m]
    rows = []
    for name in models_in(args.dir, only):
        model = os.path.join(args.dir, name + ".weft")
        pml = os.path.join(args.dir, name + ".pml")
        print("%s …" % name, file=sys.stderr)
        if os.path.exists(pml):
            for reduce in (True, False):
                rows.append(spin_row(name, pml, reduce, args.depth, args.pan_args.split(), timeout=600))
        else:
            rows.append({"model": name, "tool": "spin", "config": "-", "verdict": "error",
                         "note": "no Promela twin %s.pml" % name})
        for label, flags in WEFT_CONFIGS:
            t = args.stateful_timeout
            rows.append(weft_row(name, weft, model, "stateful",
                                 flags + ["--timeout", "%gs" % t], "stateful " + label, t + 30))
        if not args.no_stateless:
            t = args.stateless_timeout
            for algo in STATELESS:
                rows.append(weft_row(name, weft, model, algo, ["--timeout", "%gs" % t], algo, t + 30))

    print(markdown(rows))
    print()
    print(summary(rows))
    with open(args.tsv, "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")).replace("\t", " ").replace("\n", " ") for c in COLUMNS) + "\n")
    print("\nwrote %s (%d rows)" % (args.tsv, len(rows)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
