"""gunicorn settings for evalmaps. gunicorn reads this file by itself when started from this
directory (``gunicorn app:server``); the Dockerfile does the same.

Overrides, highest first: command-line flags, then ``GUNICORN_CMD_ARGS`` (for example
``GUNICORN_CMD_ARGS="--threads 4 --bind 127.0.0.1:8060"``), then this file. ``WEB_CONCURRENCY``
sets the number of workers and ``PORT`` the port, as on most hosting platforms.
"""

import os

# --- workers -----------------------------------------------------------------------------------
# Idle or slow clients must not hold a worker. Sync workers block on one connection each, so two
# silent sockets stop the service; gunicorn's gthread worker still lets silent and half-sent
# requests occupy its threads (evalmaps/service/gunicorn_worker.py explains). This gthread
# variant reads request heads in its event loop and hands only complete requests to its threads.
worker_class = "evalmaps.service.gunicorn_worker.HeadBufferingThreadWorker"
# One process per core (2 here): the callbacks are CPU-bound numpy/pandas work, which threads of
# one process cannot run in parallel. Threads let quick requests (health check, assets, layout)
# and waits on the network overlap with a running callback, and absorb bursts.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = 8
worker_connections = 1000  # open connections per worker, idle ones included (gthread's default)
bind = [f"0.0.0.0:{os.environ.get('PORT', '8050')}"]

# --- timeouts ----------------------------------------------------------------------------------
timeout = 60  # a worker silent this long is restarted; also bounds each socket read/write of a
              # request in progress (evalmaps/service/gunicorn_worker.py)
graceful_timeout = 8  # finish in-flight requests on stop/restart; under Docker's default 10 s
keepalive = 5  # seconds an idle kept-alive connection stays open (browsers reuse them)

# --- request size ------------------------------------------------------------------------------
# Every view's state is in the URL, so request lines get long: allow gunicorn's maximum.
limit_request_line = 8190
limit_request_fields = 50  # browsers send about 15
limit_request_field_size = 8190
# (Bodies are limited by the app: MAX_CONTENT_LENGTH, from EVALMAPS_MAX_UPLOAD_MB.)

# --- restarts ----------------------------------------------------------------------------------
# Replace each worker after about 1000 requests, not all at once (jitter), to bound slow memory
# growth. The worker stops taking connections, finishes its requests within graceful_timeout,
# and the master forks a fresh one.
max_requests = 1000
max_requests_jitter = 100

# preload_app: the app (catalog loaded and validated, Dash app built) is imported once in the
# master before forking.
# - Bad data stops start-up once, with one clear error, instead of once per worker.
# - Workers share the loaded data copy-on-write.
# - A worker restarted by max_requests is a fork of the already-loaded app: it serves again at
#   once, with the same data as its sibling, instead of re-reading and re-validating the files
#   while the server runs one worker short.
# The cost: new data or code needs a full restart of gunicorn (SIGHUP and max_requests restarts
# fork the app loaded at start-up), and --reload does not apply. Forking after the import is
# safe: it opens no connections and starts no Python threads (pyarrow's allocator, jemalloc, runs
# a native background thread and handles fork itself).
preload_app = True

# --- surface ----------------------------------------------------------------------------------
# gunicorn (25.1+) opens a control socket in $HOME for its gunicornc tool by default; nothing
# here uses it, so it is off.
control_socket_disable = True

# --- logging -----------------------------------------------------------------------------------
accesslog = "-"  # access log on stdout; errors go to stderr (gunicorn's default)
# gunicorn adds "Server: gunicorn" (no version number) to every response; no setting removes it.
