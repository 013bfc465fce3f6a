"""An upload of a zip of the mmlu-pro folder (one zip per model) with the Data page's per-item
options, in a real headless Chromium: one figure of model x category opens."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.browser.test_data import (  # noqa: F401 - served: the fixture
    keep_and_open,
    open_data,
    previewed,
    served,
    upload,
)
from tests.integration.test_upload_folders import zipped

pytestmark = pytest.mark.browser

FOLDER = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "mmlu-pro"


def test_a_zip_of_per_item_files_uploads_as_one_figure(served, tmp_path):  # noqa: F811
    if not FOLDER.is_dir():
        pytest.skip(f"{FOLDER} is absent")
    # the two Llama-2 zips (the shared folder holds more models since issue 38)
    folder = tmp_path / "mmlu-pro" / "eval_results"
    folder.mkdir(parents=True)
    for model in ("Llama-2-7b-hf", "Llama-2-13b-hf"):
        name = f"model_outputs_{model}_5shots.zip"
        (folder / name).write_bytes((FOLDER / "eval_results" / name).read_bytes())
    archive = tmp_path / "mmlu-pro.zip"
    archive.write_bytes(zipped(folder.parent))
    open_data(served)
    served.find_element("#data-items summary").click()
    for field, text in (("item", "question_id"), ("pred", "pred"), ("ref", "answer")):
        box = served.find_element(f"#data-{field}")
        box.send_keys(text)
        box.send_keys(Keys.TAB)
    served.driver.find_element(By.CSS_SELECTOR, "label[for=data-model-file]").click()
    upload(served, archive)
    card = previewed(served, timeout=30)
    assert "category (14 labels)" in card and "model (2)" in card and "Cells 28" in card, card
    keep_and_open(served, "upload-", timeout=30)
    assert served.get_logs() == []
