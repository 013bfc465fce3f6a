"""The docs stay true (in the spirit of Datasette's test_docs.py): every query key, setting and
catalog field the code reads is documented, and what the docs list as reserved is what the code
reserves. Each check reads the doc that holds its section: the URL and JSON contract is
docs/api.md, the settings docs/deploying.md, the catalog, the manifest and the reserved names
docs/formats.md."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from evalmaps.catalog.load import CATALOG_FIELDS, CATALOG_KEYS, RESERVED_DIM_NAMES
from evalmaps.core.names import QUERY_KEYS
from evalmaps.service.settings import SETTINGS

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
    from evalmaps.service.cli import build_parser

    text = section(FORMATS, "The manifest (`manifest.json`)")
    scripts = re.findall(r"python (scripts/\S+\.py)", text)
    assert scripts == ["scripts/make_manifest.py"] and (ROOT / scripts[0]).is_file()
    assert "evalmaps manifest data" in text
    assert build_parser().parse_args(["manifest", "data"]).command == "manifest"


# ----------------------------------------------------------------------------- the README and links

README_PATH = ROOT / "README.md"
README_MAX_BYTES = 12 * 1024
LINKED_DOCS = [README_PATH, *sorted(DOCS.glob("*.md")), ROOT / "data" / "README.md",
               ROOT / "benchmarks" / "README.md", ROOT / "benchmarks" / "results" / "README.md",
               ROOT / "CHANGELOG.md"]
# [text](target) and ![alt](target), the target up to a space (a title may follow) or ')'
LINK = re.compile(r"!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")


def test_the_readme_says_to_test_in_a_virtual_environment_of_their_own():
    """Issue 37 (a new user, 10): the README's test command, run in the venv a server runs
    from, replaces the package under it (500 on every page). Its "Test it" says to use a
    separate virtual environment, the command itself unchanged."""
    text = README_PATH.read_text(encoding="utf-8")
    section = text.split("## Test it", 1)[1].split("\n## ", 1)[0]
    before = section.split("```", 1)[0]
    assert "separate virtual environment" in before
    assert 'python -m pip install -q -e ".[test]" && python -m pytest' in section


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code (their brackets are not links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def prose_lines(text: str) -> list[str]:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S).splitlines()


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        match = re.match(r"^#{1,6} (.+?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1).replace("`", ""))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return out


def relative_links(path: Path) -> list[str]:
    targets = LINK.findall(prose(path.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I)]


def test_the_readme_is_short():
    size = README_PATH.stat().st_size
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move detail into docs/"


@pytest.mark.parametrize("doc", LINKED_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_that_exists(doc):
    broken = []
    for target in relative_links(doc):
        where, _, fragment = target.partition("#")
        file = (doc.parent / where).resolve() if where else doc
        if not file.exists():
            broken.append(f"{target} (no such file: {file})")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            broken.append(f"{target} (no heading '#{fragment}' in {file.name})")
    assert broken == [], f"{doc.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_link_check_sees_the_links():
    """Not vacuous: the README's links into docs/ and using.md's screenshots are found, with
    their anchors."""
    readme = relative_links(README_PATH)
    assert {"docs/using.md", "docs/formats.md", "docs/api.md", "docs/deploying.md",
            "docs/performance.md", "docs/testing.md", "docs/architecture.md"} <= set(readme)
    assert "docs/screenshots/browse-dynts-llama-vs-qwen.png" in readme
    assert "screenshots/compare-hover.png" in relative_links(DOCS / "using.md")
    assert "the-browse-view-" in anchors(DOCS / "using.md")
    assert "catalog-entries-catalogjson" in anchors(DOCS / "formats.md")


def test_the_readmes_test_command_is_the_one_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    ci_command = ci[ci.index("# The README's test command:") + 1].strip()
    block = re.search(r"```bash\n(.*?)\n```", section(README_PATH.read_text(encoding="utf-8"),
                                                      "Test it"), re.S)
    assert block, "no bash block under the README's 'Test it'"
    assert block.group(1).strip() == ci_command == (
        'python -m pip install -q -e ".[test]" && python -m pytest')


# ----------------------------------------------------------------------------- Python imports the docs give

PYTHON_DOCS = [README_PATH, *sorted(DOCS.rglob("*.md")), ROOT / "data" / "README.md",
               ROOT / "benchmarks" / "README.md"]
# `from evalmaps... import a, b`, in prose (inline code) or in a code block
FROM_IMPORT = re.compile(r"\bfrom (evalmaps(?:\.\w+)*) import (\(?[\w ,]+\)?)")


def doc_imports(text: str) -> list[str]:
    """Every ``from evalmaps... import ...`` the text gives, one statement per name."""
    out = []
    for module, names in FROM_IMPORT.findall(text):
        for name in names.strip("() ").split(","):
            if name.strip():
                out.append(f"from {module} import {name.strip()}")
    return out


def failing_imports(text: str) -> list[str]:
    failed = []
    for statement in doc_imports(text):
        try:
            exec(statement, {})  # noqa: S102 - the docs' own statements, run as a reader would
        except ImportError as exc:
            failed.append(f"{statement} ({exc})")
    return failed


# `evalmaps.catalog.folders.load_folder`: a Python name the docs point to by its dotted path
DOTTED = re.compile(r"`(evalmaps(?:\.\w+)+)(?:\(\))?`")
NOT_PYTHON = {"evalmaps.data",  # the data folders' logger
              "evalmaps.fitted"}  # assets/evalmaps-fit.js's function


def resolves(dotted: str) -> bool:
    """Whether ``a.b.c`` is a module, or a name a module (or its objects) has."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


def unresolved(text: str) -> list[str]:
    return [d for d in DOTTED.findall(text) if d not in NOT_PYTHON and not resolves(d)]


@pytest.mark.parametrize("doc", PYTHON_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_import_the_docs_give_works(doc):
    text = doc.read_text(encoding="utf-8")
    assert failing_imports(text) == []
    assert unresolved(text) == []


def test_the_import_check_sees_the_imports_and_fails_on_a_bad_one():
    """Not vacuous: the docs' imports are found (formats.md's and architecture.md's), and a name
    evalmaps does not export (load_folder from the package itself) fails."""
    found = [s for doc in PYTHON_DOCS for s in doc_imports(doc.read_text(encoding="utf-8"))]
    assert "from evalmaps.catalog.folders import load_folder" in found
    assert "from evalmaps.readers.base import text_of" in found
    assert len(failing_imports("Load it with `from evalmaps import load_folder, read`."
                               )) == 1
    assert unresolved("`evalmaps.read`, `evalmaps.catalog.folders.load_folder()` and "
                      "`evalmaps.readers.importers.load_folder`") == [
        "evalmaps.readers.importers.load_folder"]
