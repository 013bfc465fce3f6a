"""What each way of making Dash and Plotly do less than they do by default buys, measured.

    python benchmarks/boundary.py [--rounds 3] [--runs 5] [--only HOOK,...] [--quick] [--out DIR]

One gunicorn serves the app as it is (``all``), and one more serves it without each hook
(``benchmarks/boundary_app.py``, ``EVALMAPS_BENCH_WITHOUT=<hook>``: read by that benchmark module
only). A headless Chromium paints the three pages of the ``paint`` section (``run.py``:
Browse with 8 panels, Browse with one 1000 x 1000 panel, Compare) from every server and from the
static floor page in turn, ``--runs`` times a round, the order rotated each time, after two
warm-ups of each in the first round; ``--rounds`` rounds. Each round's median is taken against
the floor's median of the same round. The cumulative layout shift of each load is read too
(buffered ``layout-shift`` entries not caused by input, at paint time). The server side: the
browse callback's time (as ``run.py``'s callback section) and ``/_dash-layout`` with a page's
``Referer`` (the first page's layout: time and bytes), for the servers whose hook acts there.
The table goes to stdout and to ``<out>/<UTC date and time>-<commit>-boundary.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import shutil
import signal
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import floors, run  # noqa: E402
from benchmarks.boundary_app import ENV, HOOKS  # noqa: E402
from benchmarks.browser import Browser  # noqa: E402
from benchmarks.server import Gunicorn, request  # noqa: E402
from benchmarks.sweeps import sweeps  # noqa: E402

APP = "benchmarks.boundary_app:server"
SERVER_SIDE = {"all", "serialiser", "layout-json", "first-page"}  # hooks that act on the server

CLS = """
const done = arguments[arguments.length - 1];
let sum = 0;
new PerformanceObserver(list => {
  for (const e of list.getEntries()) { if (!e.hadRecentInput) { sum += e.value; } }
}).observe({type: 'layout-shift', buffered: true});
setTimeout(() => done(sum), 50);
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def start(servers: dict[str, Gunicorn]) -> None:
    def one(item):
        name, server = item
        server.start()
        log(f"gunicorn ({name}) on {server.base}")
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(one, servers.items()))


def layout_request(server: Gunicorn, path: str, repeat: int) -> tuple[float, int]:
    """Median ms and bytes of ``/_dash-layout`` asked by the page at ``path`` (its Referer)."""
    headers = {"Referer": server.base + path}
    times, size = [], 0
    for _ in range(repeat + 1):
        r = request(server.port, "GET", "/_dash-layout", headers=headers)
        if r.status != 200:
            raise RuntimeError(f"/_dash-layout answered {r.status}")
        times.append(r.seconds * 1000)
        size = len(r.body)
    return statistics.median(times[1:]), size


SCRIPT = re.compile(r'<script( type="[^"]*")?[^>]* src="([^"]+)"')


def scripts_sent(server: Gunicorn, path: str) -> tuple[float, int]:
    """KB of the scripts the page at ``path`` runs, as sent (Accept-Encoding gzip, br), and
    how many files (inert tags, which the browser neither fetches nor runs, left out)."""
    page = request(server.port, "GET", path, headers={"Accept-Encoding": "identity"})
    srcs = [src for kind, src in SCRIPT.findall(page.body.decode()) if not kind]
    sent = 0
    for src in srcs:
        r = request(server.port, "GET", src, headers={"Accept-Encoding": "gzip, br"})
        if r.status != 200:
            raise RuntimeError(f"{src} answered {r.status}")
        sent += len(r.body)
    return sent / 1024, len(srcs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5, help="paints of each page a round")
    parser.add_argument("--only", default="", help=f"hooks to measure (default all; "
                                                   f"a+b: a server without both): "
                                                   f"{', '.join(HOOKS)}")
    parser.add_argument("--pages", default="0,1,2",
                        help="which of the paint section's pages (0: Browse, 8 panels; 1: Browse, "
                             "one large panel; 2: Compare), comma-separated")
    parser.add_argument("--warmups", type=int, default=2, help="warm-up paints of each server")
    parser.add_argument("--timeout", type=float, default=90,
                        help="seconds a page may take to paint; a server whose page does not "
                             "paint in the warm-ups is left out, and the table says so")
    parser.add_argument("--quick", action="store_true", help="small sweeps: checks the script")
    parser.add_argument("--out", type=Path, default=run.RESULTS)
    args = parser.parse_args(argv)
    hooks = [h.strip() for h in args.only.split(",") if h.strip()] or list(HOOKS)
    unknown = {part for h in hooks for part in h.split("+")} - set(HOOKS)
    if unknown:
        parser.error(f"unknown hook {', '.join(sorted(unknown))}; choose from {', '.join(HOOKS)}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # the servers stop too
    started = dt.datetime.now(dt.timezone.utc)
    commit, dirty = run.git_commit()
    load_before = run.load_average()
    tmp = Path(tempfile.mkdtemp(prefix="evalmaps-bench-boundary-"))
    ctx = run.Context(args.quick, sweeps(args.quick), tmp, log)
    for sweep in ctx.sweeps:
        ctx.folders[sweep.id] = tmp / sweep.id
        ctx.csv[sweep.id] = sweep.write_catalog_folder(ctx.folders[sweep.id])
    folders = [ctx.folders[s.id] for s in ctx.sweeps]
    variants = ["all", *hooks]
    servers = {name: Gunicorn(folders, app=APP, env={ENV: "" if name == "all" else name.replace("+", ",")})
               for name in variants}
    every = run.paint_pages(ctx)
    pages = [every[int(k)] for k in args.pages.split(",")]
    paint = {}  # (round, page, variant) -> [ms]
    shift = {}  # (page, variant) -> [cls]
    server_side = {}  # (round, what, variant) -> value
    failed = {}  # variant -> why it was left out
    static = floors.StaticServer()
    browser = None
    try:
        start(servers)
        ctx.server = servers["all"]
        browser = Browser()
        versions = [browser.version()]
        floor_urls = {}
        for r in range(args.rounds):
            for n, (what, path, expected, grids, sweep, *_) in enumerate(pages):
                urls = {name: servers[name].base + path for name in variants}
                if r == 0:
                    log(f"warm-ups: {path}")
                    for name in list(variants):
                        try:
                            for _ in range(args.warmups):
                                browser.paint(urls[name], expected, args.timeout)
                        except TimeoutError as exc:
                            if name == "all":
                                raise
                            failed[name] = f"{path} did not paint: {exc}"
                            log(f"{name}: left out: {failed[name]}")
                            variants.remove(name)
                            del urls[name]
                            continue
                        if name == "all":
                            boxes = [(b["width"], b["height"]) for b in browser.graph_boxes()]
                    floor_urls[n] = static.publish(f"floor{n}.html", floors.static_page(
                        grids, sweep.x_labels, sweep.y_labels, boxes,
                        zranges=[(0, 100)] * (len(grids) - 1) + [
                            (-100, 100) if path.startswith("/compare") else (0, 100)]))
                    for _ in range(args.warmups):
                        browser.paint(floor_urls[n], expected)
                urls["floor"] = floor_urls[n]
                order = [*variants, "floor"]
                log(f"round {r + 1}: {path}")
                for k in range(args.runs):
                    turn = order[k % len(order):] + order[:k % len(order)]
                    for name in turn:
                        ms = browser.paint(urls[name], expected, args.timeout)
                        paint.setdefault((r, n, name), []).append(ms)
                        if name != "floor":
                            shift.setdefault((n, name), []).append(
                                browser.driver.execute_async_script(CLS))
            for name in variants:
                if r == 0:
                    kb, files = scripts_sent(servers[name], pages[0][1])
                    server_side[(r, "scripts of / as sent (br): KB", name)] = kb
                    server_side[(r, "scripts of /: files", name)] = files
                if r == 0 and name == "all":  # components/reuse.py: the payload section's row
                    sub = run.Context(args.quick, ctx.sweeps, tmp, log)
                    sub.server = servers[name]
                    swap = run.swap_row(sub)
                    if swap.failed:
                        raise RuntimeError(f"the swap row failed: {swap.failed}")
                    server_side[(r, "compare swap answer, page holding its maps: KB", name)] = \
                        swap.evalmaps
                    server_side[(r, "compare swap answer, page holding no maps: KB", name)] = \
                        swap.floor
                if name not in SERVER_SIDE:
                    continue
                server = servers[name]
                sub = run.Context(args.quick, ctx.sweeps, tmp, log)
                sub.server = server
                for sweep in ctx.sweeps:
                    call = run.browse_call(sub, sweep)
                    server_side[(r, f"browse callback, {run.label_cells(sweep)}: ms", name)] = \
                        call["seconds"] * 1000
                for _, path, *_ in pages:
                    ms, size = layout_request(server, path, 5)
                    server_side[(r, f"/_dash-layout of {path}: ms", name)] = ms
                    server_side[(r, f"/_dash-layout of {path}: KB", name)] = size / 1024
        versions += run.versions()
    finally:
        if browser is not None:
            browser.close()
        static.close()
        for server in servers.values():
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    text = report(args, pages, variants, paint, shift, server_side, commit, dirty, load_before,
                  versions)
    text += "".join(f"- without {name}: left out, {why}\n" for name, why in failed.items())
    print(text, end="")
    args.out.mkdir(parents=True, exist_ok=True)
    path = run.result_path(args.out, started, commit + "-boundary")
    path.write_text(run.result_text(text, started, commit, dirty, argv or sys.argv[1:])
                    .replace("benchmarks/run.py", "benchmarks/boundary.py", 1), encoding="utf-8")
    log(f"table kept in {path}")
    return 0


def report(args, pages, variants, paint, shift, server_side, commit, dirty, load_before,
           versions) -> str:
    med = statistics.median
    lines = [run.machine_line([f"commit {commit}" + (" with uncommitted changes" if dirty else ""),
                               f"load average (1 min) {load_before} at start, "
                               f"{run.load_average()} at end", *versions]), "",
             f"Paint: ms from navigation start until every heatmap is painted (run.py's probe), "
             f"median of {args.runs} a round, {args.rounds} rounds; ratio = the round's median / "
             f"the static floor's median in the same round; 'vs all' = the variant's ratio / the "
             f"app's (all hooks) ratio, per round. CLS: the largest cumulative layout shift of "
             f"any load of the page.", ""]
    for n, (what, path, *_) in enumerate(pages):
        lines += [f"### {what} (`{path}`)", "",
                  "| without | ms (median of rounds) | ratio to floor, each round | "
                  "vs all, each round | max CLS |", "| --- | --- | --- | --- | --- |"]
        floor = [med(paint[(r, n, "floor")]) for r in range(args.rounds)]
        base = [med(paint[(r, n, "all")]) / floor[r] for r in range(args.rounds)]
        for name in variants:
            ms = [med(paint[(r, n, name)]) for r in range(args.rounds)]
            ratios = [m / f for m, f in zip(ms, floor)]
            vs = [x / b for x, b in zip(ratios, base)]
            lines.append(
                f"| {'(nothing: the app)' if name == 'all' else name} | {med(ms):.0f} | "
                f"{', '.join(f'{x:.2f}' for x in ratios)} | "
                f"{'—' if name == 'all' else ', '.join(f'{x:.2f}' for x in vs)} | "
                f"{max(shift[(n, name)]):.3f} |")
        lines.append(f"| (floor: static page) | {med(floor):.0f} | | | |")
        lines.append("")
    whats = sorted({w for _, w, _ in server_side})
    if whats:
        names = variants
        lines += ["### Server side (median of rounds; each round's value in brackets)", "",
                  "| what | " + " | ".join(f"without {v}" if v != "all" else "the app"
                                           for v in names) + " |",
                  "| --- |" + " --- |" * len(names)]
        for what in whats:
            cells = []
            for v in names:
                vals = [server_side[(r, what, v)] for r in range(args.rounds)
                        if (r, what, v) in server_side]
                cells.append(f"{med(vals):.1f} ({', '.join(f'{x:.1f}' for x in vals)})"
                             if vals else "")
            lines.append(f"| {what} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
