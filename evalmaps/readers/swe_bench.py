"""SWE-bench's per-instance results: ``results/results.json`` of a submission, as the
SWE-bench/experiments repository keeps them (``evaluation/<split>/<date>_<system>/results/
results.json``; the split ``lite``, ``verified``, ``test``, ...). A JSON object of instance
lists: ``resolved`` and the other outcomes ``get_model_report`` writes (``no_generation``,
``generated``, ``with_logs``, ``install_fail``, ``reset_failed``, ``no_apply``, ``applied``,
``test_errored``, ``test_timeout``) or, in newer submissions, only ``no_generation``,
``no_logs`` and ``resolved``.

Each instance is a per-item record (:mod:`evalmaps.readers.items`) with one sample: the item its
``instance_id``, the score 1 when it is in ``resolved``, else 0. The format lists every resolved
instance, but not every unresolved one (in newer files, an unresolved instance is simply absent:
the complement of ``resolved`` within the split). So systems read together are scored on every
instance any of them names in the same split (:func:`join_items`): an instance another system's
file names and this one's does not is unresolved by this one, never a gap. Where the split's size
is known and the files name fewer instances, a warning says that the instances no file names
(unresolved by every system) are not items, so that a mean is over the instances named, not the
whole split. Dimensions: the system (``model``, a facet; from the submission's folder, kept
whole with its date), the split (y; the folder above it) and the repository (x; from the
instance id, ``django__django-11099`` is ``django/django``).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import pandas as pd

from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, Probe, Reading, short

NAME = "swe-bench"
DESCRIBES = "SWE-bench results (results/results.json)"
TOOL = "SWE-bench results"
TOOL_FILES = "SWE-bench results files"
RESOLVED = "resolved"
# what get_model_report writes (SWE-bench's harness), and no_logs of newer submissions
OUTCOMES = ("no_generation", "generated", "with_logs", "install_fail", "reset_failed",
            "no_apply", "applied", "test_errored", "test_timeout", "resolved", "no_logs")
# the splits' sizes, as SWE-bench publishes them (instances in the split)
SPLIT_SIZES = {"lite": 300, "verified": 500, "test": 2294}
INSTANCE = re.compile(r"^(?P<owner>[^_\s]+(?:_[^_\s]+)*?)__(?P<repo>\S+)-\d+$")
NO_SPLIT = "swe-bench"


def sniff(probe: Probe) -> bool:
    """An object of SWE-bench's outcome lists, one of them ``resolved``."""
    doc = probe.doc
    return isinstance(doc, dict) and isinstance(doc.get(RESOLVED), list) and all(
        key in OUTCOMES and isinstance(value, list) for key, value in doc.items())


def system_of(file: str) -> tuple[str, str]:
    """(system, split) from ``.../<split>/<date>_<system>/results/results.json``: the folder
    the results are in (the submission's, above ``results/``) and the folder above it."""
    folder = PurePosixPath(file).parent
    if folder.name == "results":
        folder = folder.parent
    split = folder.parent.name if folder.name and folder.parent.name else NO_SPLIT
    return folder.name, split


def repository(instance: str) -> str:
    """``django__django-11099`` -> ``django/django`` (SWE-bench's ids: owner__repo-number)."""
    found = INSTANCE.match(instance)
    return f"{found.group('owner')}/{found.group('repo')}" if found else "unknown"


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    system, split = system_of(file)
    if not system:
        raise ImportFailed("a SWE-bench results.json is named by the folder of its submission "
                           "(evaluation/<split>/<date>_<system>/results/results.json), and this "
                           "one is in no folder. Import it in that layout.", file=file)
    named: dict[str, None] = {}
    for outcome, instances in probe.doc.items():
        for i, instance in enumerate(instances, start=1):
            if not isinstance(instance, str) or not instance.strip():
                raise ImportFailed(f"entry {i} of '{outcome}' is not an instance id (text such "
                                   f"as django__django-11099). Import the results.json SWE-bench "
                                   f"wrote.", file=file)
            named.setdefault(instance.strip(), None)
    resolved = {i.strip() for i in probe.doc[RESOLVED]}
    if not named:
        reading.warnings.append(f"{short(file)} names no instance; it adds nothing.")
        return reading
    reading.items = pd.DataFrame({
        "model": system, "split": split, "repo": [repository(i) for i in named],
        "item": list(named), "sample": 0,
        "score": [1.0 if i in resolved else 0.0 for i in named]})
    reading.metrics["score"] = {"name": "resolved", "range": [0, 1]}
    return reading


def join_items(readings: list[Reading], warnings: list[str]) -> None:
    """Score every system on every instance any system of its split names: one its own file
    does not name is unresolved by it (the format names only some unresolved instances). Then
    warn, per split of known size, where the files name fewer instances than it holds."""
    ours = [r for r in readings if r.reader == NAME and r.items is not None and len(r.items)]
    by_split: dict[str, dict[str, str]] = {}
    for reading in ours:
        frame = reading.items
        split = str(frame["split"].iloc[0])
        by_split.setdefault(split, {}).update(zip(frame["item"], frame["repo"]))
    filled = 0
    for reading in ours:
        frame = reading.items
        split = str(frame["split"].iloc[0])
        have = set(frame["item"])
        missing = [i for i in by_split[split] if i not in have]
        if missing:
            filled += len(missing)
            reading.items = pd.concat([frame, pd.DataFrame({
                "model": frame["model"].iloc[0], "split": split,
                "repo": [by_split[split][i] for i in missing], "item": missing, "sample": 0,
                "score": 0.0})], ignore_index=True)
    if filled:
        warnings.append(f"{filled:,} instance(s) another system's results.json names are not in "
                        f"a system's own: they are unresolved by it (a results.json lists every "
                        f"resolved instance, and only some unresolved ones).")
    for split, instances in by_split.items():
        size = SPLIT_SIZES.get(split.lower())
        if size is not None and len(instances) < size:
            warnings.append(f"SWE-bench {split} has {size:,} instances and these files name "
                            f"{len(instances):,}: the other {size - len(instances):,} are "
                            f"unresolved by every system here and are not items, so each mean "
                            f"is over the {len(instances):,} named (the leaderboard's rate is "
                            f"resolved / {size:,}).")


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    return ["model", "split", "repo"]


def metric_range(label: str):
    return (0, 1)
