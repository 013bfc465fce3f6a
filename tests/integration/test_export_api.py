"""Tables for papers and significance from standard errors, over HTTP: a real ``gunicorn
app:server`` (one worker) serving the built-in figures plus a folder with lm-eval-like accuracies
and their standard errors (``EVALMAPS_EXTRA_DATA``). Whole texts are compared: the LaTeX and
Markdown of a panel, the compare API's significance counts, and the 400s that say how to
narrow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.integration.test_gunicorn import HOST, START_TIMEOUT, STOP_TIMEOUT, Server
from tests.servers import free_port, stop_gunicorn, wait_until_serving

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
CSV = """model,task,step,value,se
pythia-70m,arc_easy,1000,0.4364,0.0102
pythia-70m,arc_easy,143000,0.5,0
pythia-70m,lambada,1000,0.2500,0.0060
pythia-160m,arc_easy,1000,0.4400,0.0101
pythia-160m,arc_easy,143000,0.6170,0.0100
pythia-160m,lambada,1000,0.3,0.0065
pythia-160m,lambada,143000,1.0,0
"""
CATALOG = {"figures": [{
    "id": "pythia-se", "file": "pythia.csv", "title": "Pythia zero-shot accuracy",
    "metric": {"name": "acc", "unit": "", "range": [0, 1]},
    "x": "step", "y": "task", "facets": ["model"], "provenance": "imported",
    "dims": {"model": {"title": "Model", "labels": ["pythia-70m", "pythia-160m"]},
             "task": {"title": "Task", "labels": ["arc_easy", "lambada"]},
             "step": {"title": "Step", "labels": ["1000", "143000"]}},
}]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("se-data")
    (data / "pythia.csv").write_text(CSV, encoding="utf-8")
    (data / "catalog.json").write_text(json.dumps(CATALOG), encoding="utf-8")
    port = free_port()
    log_file = tempfile.NamedTemporaryFile(prefix="evalmaps-gunicorn-", suffix=".log",
                                           delete=False)
    log_path = Path(log_file.name)
    cmd = [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"{HOST}:{port}",
           "--workers", "1", "--timeout", "60", "--graceful-timeout", "5"]
    env = {**os.environ, "EVALMAPS_EXTRA_DATA": str(data)}
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log_file, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    log_file.close()
    srv = Server(f"http://{HOST}:{port}", proc, log_path)
    workers: list[int] = []

    def healthy() -> bool:
        status, _, body = srv.fetch("/healthz", timeout=2)
        return status == 200 and json.loads(body).get("status") == "ok"

    try:
        workers = wait_until_serving(proc, healthy, srv.log, START_TIMEOUT, workers=1)
        yield srv
    finally:
        leftovers = stop_gunicorn(proc, workers, STOP_TIMEOUT)
        log_path.unlink(missing_ok=True)
        assert not leftovers, f"gunicorn processes outlived the tests: {leftovers}"


def get(server, path):
    status, headers, body = server.fetch(path)
    return status, {k.lower(): v for k, v in headers.items()}, body.decode("utf-8")


SE_NOTE = ("a standard error of 0 for a value strictly between 0 and 1: that cannot be right "
           "(only a value at an end of the range has no sampling error), so those standard "
           "errors are flagged and not used for significance or bands.")


def test_latex_of_one_panel_with_standard_errors(server):
    status, headers, text = get(server, "/api/figures/pythia-se/cells?format=latex&model=pythia-70m")
    assert status == 200
    assert headers["content-type"] == "text/x-tex; charset=utf-8"
    assert headers["content-disposition"] == "attachment; filename=pythia-se__pythia-70m.tex"
    assert text == (r"""% Pythia zero-shot accuracy — pythia-70m. acc.
% Made with evalmaps; needs \usepackage{booktabs}.
\begin{table}[t]
\centering
\caption{Pythia zero-shot accuracy — pythia-70m. acc.}
\begin{tabular}{lrr}
\toprule
 & \multicolumn{2}{c}{Step} \\
\cmidrule(lr){2-3}
Task & 1000 & 143000 \\
\midrule
arc\_easy & \textbf{0.4364} $\pm$ 0.0102 & \textbf{0.5000} $\pm$ 0.0000$^\dagger$ \\
lambada & 0.2500 $\pm$ 0.0060 & -- \\
\bottomrule
\end{tabular}
\par\smallskip{\footnotesize Bold: the best value of each column (highest). $\pm$ one standard error (as the source gives it, else sd/$\surd$n). $^\dagger$: 1 cell gives """
                    + SE_NOTE + r""" --: not reported by the source. Provenance: imported.}
\end{table}
""")


def test_markdown_with_row_and_column_filters(server):
    status, headers, text = get(server, "/api/figures/pythia-se/cells?format=markdown"
                                        "&model=pythia-160m&step=143000")
    assert status == 200 and headers["content-type"] == "text/markdown; charset=utf-8"
    assert text == """**Pythia zero-shot accuracy — pythia-160m. acc.**

| Task \\\\ Step | 143000 |
| :-- | --: |
| arc\\_easy | 0.6170 ± 0.0100 |
| lambada | **1.0000** ± 0.0000 |

Bold: the best value of each column (highest). ± one standard error (as the source gives it, else sd/√n). Provenance: imported.
"""


@pytest.mark.parametrize("path, message", [
    ("/api/figures/pythia-se/cells?format=latex",
     "The filters leave 2 panels of figure 'pythia-se', and a table holds one. Pick one with "
     "model=<label> (model: pythia-70m, pythia-160m)."),
    ("/api/figures/dynts-r1-llama-benchmarks/cells?format=markdown&window=500",
     "The filters leave 4 panels of figure 'dynts-r1-llama-benchmarks', and a table holds one. "
     "Pick one with benchmark=<label> (benchmark: AIME24, AIME25, AMC23, GPQA-Diamond)."),
    ("/api/figures/pythia-se/cells?format=pdf",
     "Unknown format 'pdf'. Use format=json, csv, latex or markdown."),
])
def test_tables_that_cannot_be_made_are_400s_that_say_how_to_narrow(server, path, message):
    status, headers, text = get(server, path)
    assert (status, headers["content-type"]) == (400, "application/json")
    assert json.loads(text) == {"error": message, "status": 400}


def test_compare_api_counts_significant_cells(server):
    """pythia-160m (B) against pythia-70m (A), where both have a usable se:
    arc_easy 1000: +0.0036, SE sqrt(0.0102² + 0.0101²) = 0.01435, within 1.96 SE;
    lambada 1000: +0.05, SE sqrt(0.006² + 0.0065²) = 0.00885, beyond: significantly higher;
    arc_easy 143000: A's 0 for 0.5 cannot be right, so no SE."""
    a, b = quote("pythia-se:pythia-70m"), quote("pythia-se:pythia-160m")
    status, _, text = get(server, f"/api/compare?a={a}&b={b}")
    assert status == 200
    payload = json.loads(text)
    numbers = payload["summary"]
    assert {k: numbers[k] for k in ("n_common", "n_with_se", "n_indistinct", "b_sig_higher",
                                    "b_sig_lower")} == {
        "n_common": 3, "n_with_se": 2, "n_indistinct": 1, "b_sig_higher": 1, "b_sig_lower": 0}
    assert [(c["task"], c["step"], c["distinguishable"]) for c in payload["cells"]] == [
        ("arc_easy", "1000", False), ("arc_easy", "143000", None), ("lambada", "1000", True)]
    assert payload["sentences"][-1] == (
        "With standard errors in 2 of the 3 cells: pythia-160m is significantly higher than "
        "pythia-70m in 1 and significantly lower in 0 (|B − A| ≥ 1.96 SE); 1 is not "
        "distinguishable.")
    assert payload["warnings"] == ["1 cell of A gives " + SE_NOTE]
