"""A lab's folder of per-item results (issue 41): N models' zips in MMLU-Pro's layout, and the
streaming floor that imports them (orjson -> Arrow -> Parquet, one file at a time).

Each model's zip holds one JSON list of 12,032 records (``question_id``, ``question``,
``options``, ``answer``, ``answer_index``, ``cot_content``, ``category`` (14), ``src``, ``pred``,
``generated_text``), about 14 MB unzipped and 3.6 MB zipped, seeded. The questions are the same
for every model; each model's predictions and generated texts are its own, for the first
:data:`DISTINCT` models; further models are copies of those zips, their member renamed (the
import reads every file whole, whatever its bytes; compressing 1,000 distinct zips would take
longer than importing them).

``python benchmarks/lab.py make DIR N``: write the folder. ``python benchmarks/lab.py floor DIR
OUT``: the floor, in this process, printing ``{"seconds", "peak_mb", "cpu_seconds"}``. ``python
benchmarks/lab.py import DIR OUT``: ``evalmaps import DIR --item question_id --correct
pred=answer --set model={file} -o OUT/lab.csv`` in this process, printing the same.
"""

from __future__ import annotations

import io
import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

ITEMS = 12_032
CATEGORIES = ("biology", "business", "chemistry", "computer science", "economics",
              "engineering", "health", "history", "law", "math", "other", "philosophy",
              "physics", "psychology")
DISTINCT = 25  # distinct models' files; the others are hard links to them
LETTERS = "ABCDEFGHIJ"
OPTIONS = ["--item", "question_id", "--correct", "pred=answer", "--set", "model={file}"]


def _words(rng: np.random.Generator, vocabulary: np.ndarray, n: int) -> str:
    """``n`` words, the frequent ones often (Zipf's law, as a text's words)."""
    return " ".join(vocabulary[rng.choice(len(vocabulary), n, p=_ZIPF)].tolist())


_ZIPF = 1 / np.arange(1, 801)
_ZIPF /= _ZIPF.sum()


def _questions(rng: np.random.Generator, vocabulary: np.ndarray) -> list[dict]:
    out = []
    for q in range(ITEMS):
        category = CATEGORIES[q % len(CATEGORIES)]
        answer = LETTERS[int(rng.integers(0, 10))]
        out.append({"question_id": str(70 + q), "question": _words(rng, vocabulary, 30),
                    "options": json.dumps([_words(rng, vocabulary, 3) for _ in range(10)]),
                    "answer": answer, "answer_index": str(LETTERS.index(answer)),
                    "cot_content": "", "category": category,
                    "src": f"ori_mmlu-{category.replace(' ', '_')}-{q % 6}"})
    return out


def make(folder: Path, models: int) -> list[Path]:
    """Write ``models`` zips in ``folder`` (kept: made once per folder and count)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / f".made-{models}"
    paths = [folder / f"model_outputs_lab-model-{m:04d}_5shots.zip" for m in range(models)]
    if done.exists():
        return paths
    import orjson

    rng = np.random.default_rng(41)
    vocabulary = np.array(["".join(chr(97 + int(c)) for c in rng.integers(0, 26, int(k)))
                           for k in rng.integers(2, 10, len(_ZIPF))], dtype=object)
    questions = _questions(rng, vocabulary)
    texts = [_words(rng, vocabulary, 75) for _ in range(4000)]
    for m, path in enumerate(paths):
        if m >= DISTINCT:  # another model's zip, its member named after this one (the names
            # are of one length: the zip's offsets and the member's CRC stay right)
            source = paths[m % DISTINCT]
            old, new = (p.with_suffix(".json").name.encode() for p in (source, path))
            path.write_bytes(source.read_bytes().replace(old, new))
            continue
        skill = 0.2 + 0.6 * m / DISTINCT
        right = rng.random(ITEMS) < skill
        wrong = rng.integers(0, 10, ITEMS)
        picks = rng.integers(0, len(texts), ITEMS)
        records = []
        for q, base in enumerate(questions):
            pred = base["answer"] if right[q] else LETTERS[int(wrong[q])]
            records.append({**base, "pred": None if q % 97 == 0 else pred,
                            "generated_text": texts[picks[q]] + f" The answer is ({pred})."})
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
            archive.writestr(path.with_suffix(".json").name, orjson.dumps(records))
        path.write_bytes(buffer.getvalue())
    done.write_text("")
    return paths


def hwm_mb() -> float:
    """This process's peak resident set since exec (VmHWM), in MB."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def floor(folder: Path, out: Path) -> None:
    """The floor: each zip read, unzipped, parsed with orjson, its records as Arrow columns
    (the model from the file name; the score pred == answer) and written, one file at a time,
    to a scores and a texts Parquet file (zstd), what evalmaps keeps."""
    import orjson
    import pyarrow as pa
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    scores_writer = texts_writer = None
    for path in sorted(folder.glob("*.zip")):
        with zipfile.ZipFile(path) as archive:
            (member,) = archive.namelist()
            records = orjson.loads(archive.read(member))
        model = path.name[:-len(".zip")]
        n = len(records)
        ids = [r["question_id"] for r in records]
        category = [r["category"] for r in records]
        score = [float(r["pred"] is not None and r["pred"] == r["answer"]) for r in records]
        scores = pa.table({"model": pa.array([model] * n), "category": category, "item": ids,
                           "sample": pa.array(np.zeros(n, dtype=np.int64)),
                           "score": pa.array(score, pa.float64())})
        texts = pa.table({"model": pa.array([model] * n), "category": category, "item": ids,
                          "prompt": [r["question"] for r in records],
                          "target": [r["answer"] for r in records],
                          "response": [r["generated_text"] for r in records]})
        del records
        if scores_writer is None:
            scores_writer = pq.ParquetWriter(out / "scores.parquet", scores.schema,
                                             compression="zstd")
            texts_writer = pq.ParquetWriter(out / "texts.parquet", texts.schema,
                                            compression="zstd")
        scores_writer.write_table(scores)
        texts_writer.write_table(texts)
    scores_writer.close()
    texts_writer.close()


def run_import(folder: Path, out: Path) -> None:
    from evalmaps.service.cli import main

    out.mkdir(parents=True, exist_ok=True)
    code = main(["import", str(folder), *OPTIONS, "-o", str(out / "lab.csv")])
    if code != 0:
        raise SystemExit(f"evalmaps import exited with {code}")


def main(argv: list[str]) -> int:
    what, folder = argv[0], Path(argv[1])
    if what == "make":
        make(folder, int(argv[2]))
        return 0
    start, cpu = time.perf_counter(), time.process_time()
    (floor if what == "floor" else run_import)(folder, Path(argv[2]))
    print(json.dumps({"seconds": time.perf_counter() - start, "peak_mb": hwm_mb(),
                      "cpu_seconds": time.process_time() - cpu}))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    raise SystemExit(main(sys.argv[1:]))
