"""docs/deploying.md's team set-up: its compose.yaml is valid YAML, runs two evalmaps replicas
on one S3 store, and every variable it sets is one evalmaps or botocore reads."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from evalmaps.service.settings import SETTINGS, Settings

DEPLOYING = (Path(__file__).resolve().parents[2] / "docs" / "deploying.md").read_text("utf-8")
AWS = {"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}


def compose() -> dict:
    block = re.search(r"```yaml\n(# compose\.yaml.*?)```", DEPLOYING, re.S)
    assert block, "docs/deploying.md has no compose.yaml"
    return yaml.safe_load(block.group(1))


def test_the_compose_file_runs_two_replicas_on_one_s3_store():
    services = compose()["services"]
    app = services["evalmaps"]
    assert app["build"] == "." and app["deploy"]["replicas"] == 2
    env = app["environment"]
    assert AWS <= set(env)
    assert set(env) - AWS <= {var for var, _, _ in SETTINGS.values()} | {"WEB_CONCURRENCY"}
    settings = Settings.from_env({k: str(v) for k, v in env.items()})
    assert settings.store_dir.startswith("s3://") and settings.extra_data[0].startswith("s3://")
    bucket = settings.store_dir.split("/")[2]
    assert f"mc mb --ignore-existing s3/{bucket}" in services["bucket"]["entrypoint"]
    assert env["AWS_ENDPOINT_URL"] == "http://minio:9000"
    assert "proxy_pass http://evalmaps:8050" in compose()["configs"]["nginx"]["content"]
