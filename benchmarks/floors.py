"""Floors, measured in the same run: what the same numbers cost with nothing around them.

- JSON floor: ``orjson.dumps`` of the shown values alone, as float32 base64 typed-array dicts
  (``{"dtype": "f4", "bdata": ..., "shape": "r, c"}``), timed in this process.
- Payload floor: the bytes of those typed arrays plus the x and y labels.
- Paint floor: a static HTML page drawing the same grids with ``Plotly.newPlot`` (the
  plotly.min.js of the installed plotly package, typed arrays, one hovertemplate, the same
  sizes as the app's graphs), served from 127.0.0.1 by Python's http.server in a thread.
- Dash floor (no goal; what Dash's own start costs): a Dash app whose layout is nothing but one
  ``dcc.Graph`` per grid holding the paint floor's figures, as Dash serves it out of the box
  (:class:`DashFloor`).
"""

from __future__ import annotations

import base64
import functools
import http.server
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import orjson
import plotly

PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"


def typed(z: np.ndarray) -> dict:
    z32 = np.ascontiguousarray(z, dtype=np.float32)
    return {"dtype": "f4", "bdata": base64.b64encode(z32.tobytes()).decode("ascii"),
            "shape": f"{z32.shape[0]}, {z32.shape[1]}"}


def json_floor_seconds(grids: list[np.ndarray], repeat: int = 7) -> float:
    """Median time to serialise the grids' values alone (float64 in, float32 base64 JSON out)."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        orjson.dumps([typed(z) for z in grids])
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def payload_floor_bytes(grids: list[np.ndarray], x_labels: list[str], y_labels: list[str]) -> int:
    return len(orjson.dumps([{"z": typed(z), "x": x_labels, "y": y_labels} for z in grids]))


PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>body {{ margin: 0; font-family: sans-serif; }} .g {{ margin: 4px; }}</style>
<script src="plotly.min.js"></script></head>
<body>{divs}
<script>
var FIGS = {figs};
FIGS.forEach(function (f, i) {{
{draw}
}});
</script></body></html>
"""

# each grid drawn as one plain heatmap (static_page)
DRAW_GRID = (
    "  Plotly.newPlot('g' + i, [{type: 'heatmap', z: f.z, x: f.x, y: f.y, zmin: f.zmin, "
    "zmax: f.zmax,\n"
    "    colorscale: 'Viridis', hovertemplate: '%{y} · %{x} · %{z:.1f}<extra></extra>'}],\n"
    "    {width: f.width, height: f.height, xaxis: {type: 'category'},\n"
    "      yaxis: {type: 'category', autorange: 'reversed'}}, {displaylogo: false});")
# a figure as given, its data and layout (figures_page)
DRAW_FIGURE = "  Plotly.newPlot('g' + i, f.data, f.layout, {displaylogo: false});"


def page(title: str, figs: list, draw: str) -> str:
    """A static page drawing ``figs`` (JSON), one graph each, by ``draw`` (JavaScript run for
    each figure ``f`` and its index ``i``)."""
    divs = "".join(f'<div class="g" id="g{i}"></div>' for i in range(len(figs)))
    return PAGE.format(title=title, divs=divs, figs=orjson.dumps(figs).decode(), draw=draw)


def static_page(grids: list[np.ndarray], x_labels: list[str], y_labels: list[str],
                boxes: list[tuple[int, int]], zranges: list[tuple[float, float]],
                labels: list[tuple[list[str], list[str]]] | None = None) -> str:
    """The HTML of the floor page: one graph per grid, sized (width, height) as in the app;
    ``labels``: each grid's own (x, y) labels, where the grids' differ."""
    labels = labels or [(x_labels, y_labels)] * len(grids)
    figs = [{"z": typed(z), "x": x, "y": y, "width": w, "height": h, "zmin": lo, "zmax": hi}
            for z, (w, h), (lo, hi), (x, y) in zip(grids, boxes, zranges, labels)]
    return page("static floor", figs, DRAW_GRID)


def figures_page(figures: list[dict]) -> str:
    """The HTML of a static page drawing ``figures`` (Plotly figure dicts: ``data``,
    ``layout``) with ``Plotly.newPlot``, one graph each: a page's own maps without the app."""
    return page("static floor: the page's own figures", figures, DRAW_FIGURE)


HOVER = "%{y} · %{x} · %{z:.1f}<extra></extra>"


def floor_figures(grids: list[np.ndarray], x_labels: list[str], y_labels: list[str],
                  boxes: list[tuple[int, int]], zranges: list[tuple[float, float]]) -> list[dict]:
    """The figures the static floor page draws (:func:`static_page`), as Plotly figure dicts."""
    return [{"data": [{"type": "heatmap", "z": typed(z), "x": x_labels, "y": y_labels,
                       "zmin": lo, "zmax": hi, "colorscale": "Viridis", "hovertemplate": HOVER}],
             "layout": {"width": w, "height": h, "xaxis": {"type": "category"},
                        "yaxis": {"type": "category", "autorange": "reversed"}}}
            for z, (w, h), (lo, hi) in zip(grids, boxes, zranges)]


def dash_floor_app(figures: list[dict]):
    """A Dash app of one ``dcc.Graph`` per figure and nothing else (Dash's defaults: its own
    scripts served locally, no compression, no assets). Build it in a process of its own
    (:class:`DashFloor`): a Dash app takes the callbacks registered with ``dash.callback`` in its
    process on its first request, and becomes the process's ``dash.get_app()``."""
    import dash
    from dash import dcc, html

    app = dash.Dash("evalmaps_dash_floor", serve_locally=True,
                    assets_folder=tempfile.mkdtemp(prefix="evalmaps-bench-dash-floor-"))
    app.layout = html.Div([dcc.Graph(id=f"g{i}", figure=figure, config={"displaylogo": False})
                           for i, figure in enumerate(figures)])
    return app


class DashFloor:
    """:func:`dash_floor_app` served on 127.0.0.1 (an ephemeral port) by werkzeug, in a Python
    process of its own (``python -m benchmarks.floors <figures.json>``)."""

    def __init__(self, figures: list[dict], timeout: float = 60.0):
        self.folder = Path(tempfile.mkdtemp(prefix="evalmaps-bench-dash-floor-"))
        spec = self.folder / "figures.json"
        spec.write_bytes(orjson.dumps(figures))
        self.proc = subprocess.Popen([sys.executable, "-m", "benchmarks.floors", str(spec)],
                                     cwd=Path(__file__).resolve().parent.parent,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = ""
        deadline = time.monotonic() + timeout
        while not line.startswith("port ") and time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], deadline - time.monotonic())
            if not ready:
                break
            line = self.proc.stdout.readline()
            if not line:  # the process ended
                break
        if not line.startswith("port "):
            self.close()
            raise RuntimeError("the bare Dash app did not start")
        self.port = int(line.split()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()


def _serve_dash_floor(spec: str) -> None:
    from werkzeug.serving import make_server

    app = dash_floor_app(orjson.loads(Path(spec).read_bytes()))
    httpd = make_server("127.0.0.1", 0, app.server, threaded=True)
    print(f"port {httpd.server_port}", flush=True)
    httpd.serve_forever()


class _Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        # cacheable like the app's fingerprinted bundles, so warm navigations compare alike
        if self.path.endswith(".js"):
            self.send_header("Cache-Control", "public, max-age=3600")
        else:
            self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, *args):  # quiet
        pass


class StaticServer:
    """http.server on 127.0.0.1 (an ephemeral port) serving a temporary folder in a thread."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="evalmaps-bench-static-"))
        (self.folder / "plotly.min.js").write_bytes(PLOTLY_JS.read_bytes())
        handler = functools.partial(_Handler, directory=str(self.folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def publish(self, name: str, html: str) -> str:
        (self.folder / name).write_text(html, encoding="utf-8")
        return f"{self.base}/{name}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()


if __name__ == "__main__":
    _serve_dash_floor(sys.argv[1])
