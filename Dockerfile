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
COPY app.py routes.py ./
RUN python -m pip install -e . \
    && useradd --create-home --uid 10001 evalmaps

USER evalmaps
EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8050/healthz', timeout=4).status != 200)"
CMD ["gunicorn", "app:server", "--bind", "0.0.0.0:8050", "--workers", "2", "--timeout", "60", "--access-logfile", "-"]
