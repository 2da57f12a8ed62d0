"""gordian from Python: every outcome of a game situation, paradoxes, optimal Gordian cuts.

``gordian.solve(text)`` answers an instance of any system (a ?AR night, an FFT, Lancer,
Foeman or FF8 scenario) given as text, with the same JSON answer the command line prints
for the same file (``gordian resolve FILE --explain --json`` for nights, ``gordian check
FILE --json`` for the other systems), as a ``dict``. Both engines solve it and are
compared, as on the command line. Failures are exceptions: ``ParseError`` (located),
``LimitError`` (the time limit or the memory bound), ``DisagreementError`` (a bug).

See docs/python.md.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from . import _gordian

__all__ = [
    "solve",
    "resolve_night",
    "respond",
    "generate",
    "check",
    "setup_analyse",
    "detect",
    "systems",
    "to_frame",
    "version",
    "GordianError",
    "ParseError",
    "LimitError",
    "DisagreementError",
]


class GordianError(Exception):
    """A request gordian could not answer. ``kind`` is ``parse``, ``timeout``, ``limit``,
    ``disagree`` or ``input``; ``system`` the system it was read as; ``report`` what the
    command line prints on standard error."""

    def __init__(self, response: dict):
        self.response = response
        self.kind: str = response.get("kind", "")
        self.system: Optional[str] = response.get("system") or None
        self.status: str = response.get("status", "")
        self.report: str = response.get("report", "")
        super().__init__(self.status.removeprefix("error: ") or self.kind)


class ParseError(GordianError):
    """The text is not a valid instance. ``errors`` lists every located error as dicts
    ``{line, column, message}`` (from 1); ``line``, ``column`` and ``message`` are the
    first one's."""

    def __init__(self, response: dict):
        super().__init__(response)
        self.errors: list = list(response.get("errors") or [])
        first = self.errors[0] if self.errors else {}
        self.line: Optional[int] = first.get("line")
        self.column: Optional[int] = first.get("column")
        self.message: str = first.get("message", self.status)

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return f"{self.line}:{self.column}: {self.message}"


class LimitError(GordianError):
    """No answer within the time limit (``kind == "timeout"``) or the memory bound on an
    engine's state (``kind == "limit"``)."""


class DisagreementError(GordianError):
    """The two engines gave different answers: a bug in gordian (please report it with
    the instance). ``response["answers"]`` holds both."""


_ERRORS = {"parse": ParseError, "timeout": LimitError, "limit": LimitError, "disagree": DisagreementError}


def respond(
    text: str,
    system: Optional[str] = None,
    name: Optional[str] = None,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
    seed: Optional[int] = None,
    results: bool = False,
) -> dict:
    """The whole response to one instance, as the playground gets it: ``ok``, ``system``,
    ``status`` (the report's first line), ``report`` (the human report), ``answer`` (the
    ``--json`` answer), ``dot`` (a night's picture), ``command`` (the command line that
    gives the same), ``cross_checked`` and ``ms``; on failure ``ok`` is false (no
    exception)."""
    request: dict[str, Any] = {"text": text}
    if system is not None:
        request["system"] = system
    if name is not None:
        request["name"] = name
    if timeout is not None:
        request["timeout_ms"] = float(timeout) * 1e3
    if max_memory is not None:
        request["max_memory_mib"] = int(max_memory)
    if seed is not None:
        request["seed"] = int(seed)
    if results:
        request["results"] = True
    return json.loads(_gordian.solve_request(json.dumps(request)))


def _answer(response: dict) -> dict:
    if response.get("ok"):
        return response
    raise _ERRORS.get(response.get("kind", ""), GordianError)(response)


def solve(
    text: str,
    system: Optional[str] = None,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
    *,
    name: Optional[str] = None,
    seed: Optional[int] = None,
) -> dict:
    """Solves an instance given as text and returns its JSON answer as a ``dict``: the
    object ``gordian resolve FILE --explain --json`` prints for a night, the
    ``files[0].answer`` of ``gordian check FILE --json`` for the other systems.

    ``system`` (``ar``, ``fft``, ``lancer``, ``foeman``, ``ff8``) is detected when left
    out: by ``name``'s extension, else the first system whose format reads the text.
    ``timeout`` is in seconds, ``max_memory`` in MiB (the bound on each engine's state,
    1024 by default). Raises ``ParseError``, ``LimitError`` or ``DisagreementError``."""
    r = respond(text, system=system, name=name, timeout=timeout, max_memory=max_memory, seed=seed)
    return _answer(r)["answer"]


def resolve_night(
    text: str,
    explain: bool = False,
    results: bool = False,
    *,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
    seed: Optional[int] = None,
    name: Optional[str] = None,
) -> dict:
    """Resolves a ?AR night: the answer of ``gordian resolve FILE --explain --json``
    (with ``results``, ``--results`` too: what each player learns). With ``explain`` the
    dict also holds ``report``, the human report with every explanation."""
    r = _answer(
        respond(
            text,
            system="ar",
            name=name,
            timeout=timeout,
            max_memory=max_memory,
            seed=seed,
            results=results,
        )
    )
    answer = r["answer"]
    if explain:
        answer = dict(answer, report=r["report"])
    return answer


def generate(system: str = "ar", seed: int = 0, count: int = 1, **knobs: Any) -> list:
    """``count`` random instances of ``system`` as texts, exactly as ``gordian gen
    --system SYSTEM --seed SEED --count COUNT --out -`` writes them (each with its ``#``
    header line). ``knobs`` are the generator's flags by name: ``players=8`` is
    ``--players 8``, ``max_effects=20`` is ``--max-effects 20``, a list is written
    comma-separated (``kinds=["block", "kill"]``), ``True`` is a flag alone. A flag of
    another system, or a bad value, raises ``GordianError`` (kind ``input``)."""
    flags = ["--system", system, "--seed", str(int(seed)), "--count", str(int(count))]
    for key, value in knobs.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            flags += [flag, ",".join(str(v) for v in value)]
        else:
            flags += [flag, str(value)]
    r = json.loads(_gordian.generate_request(json.dumps({"flags": flags})))
    if not r.get("ok"):
        raise GordianError(r)
    return r["instances"]


def check(
    paths,
    jobs: Optional[int] = None,
    *,
    system: Optional[str] = None,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
):
    """Yields one record per instance file under ``paths`` (a path or a list; folders are
    walked as ``gordian batch`` walks them, sorted), the record ``gordian batch`` writes:
    ``path``, ``system``, ``label``, the system's own fields, ``engines``, ``times_ms``,
    ``cross_checked``; a file that does not read, or one over ``timeout`` (seconds) or
    ``max_memory`` (MiB), is a record with ``error`` and ``error_kind``. ``jobs`` files are
    solved at once (threads; default: one per core). Records come in the files' order."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    request: dict[str, Any] = {"paths": [os.fspath(p) for p in paths]}
    if system is not None:
        request["system"] = system
    r = json.loads(_gordian.files_request(json.dumps(request)))
    if not r.get("ok"):
        raise GordianError(r)

    def one(path: str) -> dict:
        req: dict[str, Any] = {"path": path}
        if system is not None:
            req["system"] = system
        if timeout is not None:
            req["timeout_ms"] = float(timeout) * 1e3
        if max_memory is not None:
            req["max_memory_mib"] = int(max_memory)
        return json.loads(_gordian.record_request(json.dumps(req)))

    workers = jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(one, r["files"])


def setup_analyse(
    text: str,
    *,
    name: Optional[str] = None,
    exact_limit: Optional[int] = None,
    samples: Optional[int] = None,
    seed: Optional[int] = None,
    sample: bool = False,
    symmetry: bool = True,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
) -> dict:
    """Every night a role setup (``.setup`` text, docs/setup.md) allows, or a uniform
    sample past ``exact_limit`` nights: the report ``gordian setup analyse --json`` prints,
    as a dict, with ``text`` added (the human report). ``timeout`` (seconds) and
    ``max_memory`` (MiB) bound each night; nights over them are listed in ``failed``.
    Raises ``ParseError`` for a bad setup."""
    request: dict[str, Any] = {"text": text, "sample": bool(sample), "symmetry": bool(symmetry)}
    for key, value in [("name", name), ("exact_limit", exact_limit), ("samples", samples), ("seed", seed)]:
        if value is not None:
            request[key] = value
    if timeout is not None:
        request["timeout_ms"] = float(timeout) * 1e3
    if max_memory is not None:
        request["max_memory_mib"] = int(max_memory)
    r = json.loads(_gordian.setup_request(json.dumps(request)))
    if not r.get("ok"):
        raise _ERRORS.get(r.get("kind", ""), GordianError)(r)
    if r.get("disagreed"):
        raise DisagreementError(dict(r, kind="disagree", status="error: the engines disagree on some night (a bug in gordian)"))
    return dict(r["report"], text=r["text"])


def detect(text: str, name: str = "") -> Optional[str]:
    """The system ``text`` is read as (by ``name``'s extension first), or None."""
    return _gordian.detect(name, text) or None


def systems() -> list:
    """The systems: ``[{"id", "noun", "extensions"}]``."""
    return json.loads(_gordian.systems())


def version() -> str:
    """The version of gordian this package was built from."""
    return _gordian.version()


def to_frame(records: Iterable[dict]):
    """Records (answers, or any dicts) as a DataFrame of one row per record, nested
    fields flattened into dotted columns: pandas when it is installed, else polars."""
    rows = list(records)
    try:
        import pandas

        return pandas.json_normalize(rows)
    except ImportError:
        pass
    try:
        import polars

        return polars.json_normalize(rows)
    except ImportError:
        raise ImportError("gordian.to_frame needs pandas or polars: pip install pandas") from None
