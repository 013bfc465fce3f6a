"""Names the dead-code check (vulture, run by tests/tools/test_lint.py) cannot see used: each is
read by a framework or by name from outside Python. Keep this list short; a name here is live."""

# ruff: noqa
# mypy: ignore-errors
_ = None

# Flask and Dash set these attributes and read them themselves
_.sort_keys  # app.py: Flask's JSON provider option
_.suppress_callback_exceptions  # app.py: Dash's config
_.direct_passthrough  # app.py: a Flask response read by werkzeug
_.binary_location  # benchmarks/browser.py: selenium's Chrome options
_.log_message  # benchmarks/floors.py: http.server's hook, overridden to stay quiet
_.load_config  # evalmaps/service/server.py: gunicorn's BaseApplication hook

_.seekable  # evalmaps/catalog/imports.py _Window: the io protocol, asked by zipfile and io

# module-level __getattr__ (PEP 562): Python calls it
__getattr__  # evalmaps/__init__.py, app.py

# gunicorn reads its settings by name from gunicorn.conf.py, and its worker class by dotted path
worker_class, worker_connections, graceful_timeout, keepalive, limit_request_line
limit_request_fields, limit_request_field_size, max_requests_jitter, preload_app
control_socket_disable, accesslog
HeadBufferingThreadWorker  # evalmaps/service/gunicorn_worker.py, named in gunicorn.conf.py
_.nr_conns  # gunicorn's gthread worker reads it
_.data_ready  # gunicorn's gthread connection attribute

# Dash calls a dict-based callback with its inputs by name, used or not
pressed  # layouts/compare.py sync(): the buttons trigger it; their count is not read

# the contracts tests hold the code to: named once here, read by the tests that check them
SCALE_CHOICES, contrast  # evalmaps/figures/theme.py: the colour scales offered, WCAG contrast (test_colour)
CLASSES  # evalmaps/analysis/trends.py: the trend classes a line may get (test_trends_properties)
CATALOG_FIELDS, CATALOG_KEYS  # evalmaps/catalog/load.py: what test_docs checks docs/formats.md lists
IN_THE_BROWSER  # components/dash_internals.py: the browser's half of the Dash boundary (test_dash_internals)

# per-item records (issue 27): read by the catalog that serves item figures
cell_values  # evalmaps/catalog/items.py: ItemRecords.cell_values (tests/unit/test_items_store.py)
paired_text  # components/compare.py: a cell's paired line as hover and readout write it (browser test)
power_text  # components/compare.py: a cell's error bar and power as hover and readout write them (browser test)
figure_at  # evalmaps/catalog/items.py: a figure at pass@k, for the k menu (the itemsui helper wires it)
reads  # evalmaps/service/live.py FolderReader: files read so far (test_live: only changes are read)
a_se, a_se_clustered, b_se_clustered, a_var_within, a_var_between, a_within_share
b_var_within, b_var_between, b_within_share  # evalmaps/analysis/paired.py: Paired's fields reach the API through asdict
b_se
se_diff_clustered
n_clusters

# the notebook (issue 40): IPython calls _ipython_display_, which names display_figure by string
_ipython_display_  # evalmaps/service/api.py: Results in a notebook
display_figure  # components/notebook.py: evalmaps.service.api.NOTEBOOK
display_comparison  # components/notebook.py: evalmaps.service.api.NOTEBOOK_COMPARISON
_constructor  # evalmaps/service/api.py: pandas' hook (ComparisonFrame's selections are DataFrames)

# the reader protocol (issue 36): optional hooks read by name (evalmaps.readers.base.hook), and
# the conformance suite a lab's tests subclass
TABLE  # evalmaps/readers/csvfile.py, jsonl.py, parquet.py: the table readers' hook
ReaderConformance  # evalmaps/readers/testing.py: subclassed by tests/unit/test_reader_conformance.py
# the suite on every core: tests/conftest.py numbers each xdist worker's dash[testing] servers
number_test_servers_from  # components/dash_internals.py, called from tests/conftest.py
_next_port  # components/dash_internals.py: dash[testing]'s BaseDashRunner reads it
