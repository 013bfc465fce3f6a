# evalmaps: the dashboard behind gunicorn, as a non-root user, with a health check.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY evalmaps ./evalmaps
COPY components ./components
COPY layouts ./layouts
COPY assets ./assets
COPY data ./data
COPY app.py routes.py gunicorn.conf.py gunicorn_worker.py ./
RUN python -m pip install -e . \
    && useradd --create-home --uid 10001 evalmaps

USER evalmaps
EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import os, sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8050'), timeout=4).status != 200)"
# gunicorn.conf.py: threaded workers that idle or slow clients cannot starve, 0.0.0.0:8050,
# timeouts, request limits, worker recycling, access log on stdout. Named explicitly so that a
# missing file is an error, not a silent fallback to gunicorn's defaults. Override with
# WEB_CONCURRENCY, PORT or GUNICORN_CMD_ARGS (e.g. docker run -e GUNICORN_CMD_ARGS="--threads 4").
CMD ["gunicorn", "--config", "gunicorn.conf.py", "app:server"]
