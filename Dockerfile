# evalmaps: the dashboard behind gunicorn (evalmaps serve), as a non-root user, with a health check.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Install the wheel (it carries data/, assets/ and gunicorn.conf.py), then drop the sources.
WORKDIR /tmp/evalmaps-src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY evalmaps ./evalmaps
COPY components ./components
COPY layouts ./layouts
COPY assets ./assets
COPY data ./data
COPY app.py gunicorn.conf.py ./
RUN python -m pip install ".[s3]" \
    && cd / && rm -rf /tmp/evalmaps-src \
    && useradd --create-home --uid 10001 evalmaps

USER evalmaps
WORKDIR /home/evalmaps
EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import os, sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8050'), timeout=4).status != 200)"
# evalmaps serve: gunicorn with the installed gunicorn.conf.py (threaded workers that idle or slow
# clients cannot starve, timeouts, request limits, worker recycling, access log on stdout), on all
# interfaces at $PORT (default 8050). WEB_CONCURRENCY sets the number of workers; other gunicorn
# options go in GUNICORN_CMD_ARGS (e.g. docker run -e GUNICORN_CMD_ARGS="--threads 4").
CMD ["evalmaps", "serve", "--host", "0.0.0.0"]
