"""``evalmaps compare``'s and ``evalmaps rank``'s terminal tables: rich's where stdout is a
terminal (fitted to its width), plain columns in a pipe; the same rows and marks either way."""

from __future__ import annotations

import io
import re

import pytest

from evalmaps.service import cli


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def run(monkeypatch, capsys):
    def run(*args: str, tty: bool, columns: int = 200) -> str:
        monkeypatch.setenv("COLUMNS", str(columns))
        out = Terminal() if tty else io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        assert cli.main(list(args)) == 0, capsys.readouterr().err
        return out.getvalue()

    return run


def test_a_terminal_gets_rich_and_a_pipe_plain_columns_of_the_same_rows(run):
    keys = ("compare", "mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b")
    rich_text, plain = run(*keys, tty=True), run(*keys, tty=False)
    assert "┃" in rich_text or "│" in rich_text  # rich's box
    assert "│" not in plain and "┃" not in plain
    for text in (rich_text, plain):
        assert text.count("▲") == 10 + 1 and text.count("▼") == 1  # 10 cells, and the legend
        assert "psychology" in text and "Llama-2-13B is higher than Llama-2-7B" in text


def test_a_narrow_terminal_folds_the_table_to_its_width(run):
    text = run("compare", "mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b", tty=True, columns=90)
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # rich's colours
    table = [line for line in text.splitlines() if "│" in line or "┃" in line]
    assert table and max(len(line) for line in table) <= 90


def test_rank_in_a_terminal_and_a_pipe(run):
    rich_text, plain = run("rank", "mmlu-pro", tty=True), run("rank", "mmlu-pro", tty=False)
    for text in (rich_text, plain):
        assert text.count("Llama-2-13B is best or tied in 14 of 14 categories") == 1
        assert "biology" in text
