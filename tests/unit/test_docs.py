"""The docs stay true (in the spirit of Datasette's test_docs.py): every query key, setting and
catalog field the code reads is documented, and what the docs list as reserved is what the code
reserves. Each check reads the doc that holds its section: the URL and JSON contract is
docs/api.md, the settings docs/deploying.md, the catalog, the manifest and the reserved names
docs/formats.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalmaps.loading import CATALOG_FIELDS, CATALOG_KEYS, RESERVED_DIM_NAMES
from evalmaps.settings import SETTINGS
from evalmaps.state import QUERY_KEYS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API = (DOCS / "api.md").read_text(encoding="utf-8")
DEPLOYING = (DOCS / "deploying.md").read_text(encoding="utf-8")
FORMATS = (DOCS / "formats.md").read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """A markdown section's text, from its heading to the next heading of the same level."""
    match = re.search(rf"^(#+) {re.escape(heading)}\n(.*?)(?=^\1 |\Z)", text, re.M | re.S)
    assert match, f"no section '{heading}'"
    return match.group(2)


def table_keys(text: str) -> set[str]:
    """The backquoted names in the first column of every markdown table row."""
    keys = set()
    for line in text.splitlines():
        if line.startswith("| `"):
            keys |= set(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return keys


@pytest.mark.parametrize("key", list(QUERY_KEYS))
def test_every_query_key_is_in_the_api_docs_table(key):
    assert key in table_keys(section(API, "URL and JSON contract"))


def test_the_api_docs_list_no_query_key_the_code_does_not_read():
    documented = table_keys(section(API, "URL and JSON contract")) - {"<dimension>"}
    assert documented == set(QUERY_KEYS)


def test_every_setting_is_documented():
    documented = table_keys(section(DEPLOYING, "Settings"))
    assert documented == {var for var, _, _ in SETTINGS.values()}


def test_every_catalog_field_is_documented():
    documented = table_keys(section(FORMATS, "Catalog entries (`catalog.json`)"))
    # a row may document several keys ("`x`, `y`, `facets`")
    assert documented == set(CATALOG_FIELDS)
    for key in CATALOG_KEYS:
        assert f"`{key}`" in section(FORMATS, "Catalog entries (`catalog.json`)")


def test_reserved_names_in_the_docs_are_the_codes():
    sentence = re.search(r"Dimension names (.*?) are reserved", FORMATS, re.S).group(1)
    assert set(re.findall(r"`([^`]+)`", sentence)) == set(RESERVED_DIM_NAMES)


def test_the_manifest_regeneration_commands_the_docs_give_exist():
    from evalmaps.cli import build_parser

    text = section(FORMATS, "The manifest (`manifest.json`)")
    scripts = re.findall(r"python (scripts/\S+\.py)", text)
    assert scripts == ["scripts/make_manifest.py"] and (ROOT / scripts[0]).is_file()
    assert "evalmaps manifest data" in text
    assert build_parser().parse_args(["manifest", "data"]).command == "manifest"
