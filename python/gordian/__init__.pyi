"""gordian from Python: every outcome of a game situation, paradoxes, optimal Gordian cuts.

Types of the package's functions; their docstrings are in ``gordian/__init__.py`` and
docs/python.md.
"""

from typing import Any, Iterable, Iterator, Optional

class GordianError(Exception):
    """A request gordian could not answer."""

    response: dict[str, Any]
    kind: str
    system: Optional[str]
    status: str
    report: str

class ParseError(GordianError):
    """The text is not a valid instance: every located error, the first one's position."""

    errors: list[dict[str, Any]]
    line: Optional[int]
    column: Optional[int]
    message: str

class LimitError(GordianError):
    """No answer within the time limit (kind "timeout") or the memory bound (kind "limit")."""

class DisagreementError(GordianError):
    """The two engines disagree: a bug in gordian."""

def solve(
    text: str,
    system: Optional[str] = None,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
    *,
    name: Optional[str] = None,
    seed: Optional[int] = None,
) -> dict[str, Any]:
    """The instance's JSON answer, as the command line prints it for the same file."""

def resolve_night(
    text: str,
    explain: bool = False,
    results: bool = False,
    *,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
    seed: Optional[int] = None,
    name: Optional[str] = None,
) -> dict[str, Any]:
    """A ?AR night's answer (`resolve --explain --json`), with `report` when `explain`."""

def respond(
    text: str,
    system: Optional[str] = None,
    name: Optional[str] = None,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
    seed: Optional[int] = None,
    results: bool = False,
) -> dict[str, Any]:
    """The whole response (status, report, answer, dot, command, ...); never raises."""

def generate(system: str = "ar", seed: int = 0, count: int = 1, **knobs: Any) -> list[str]:
    """Instances as `gordian gen` writes them; knobs are its flags by name."""

def check(
    paths: Any,
    jobs: Optional[int] = None,
    *,
    system: Optional[str] = None,
    timeout: Optional[float] = None,
    max_memory: Optional[int] = None,
) -> Iterator[dict[str, Any]]:
    """One `gordian batch` record per instance file under the paths, in order."""

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
) -> dict[str, Any]:
    """The report of `gordian setup analyse --json` on a setup's text, with `text`."""

def detect(text: str, name: str = "") -> Optional[str]:
    """The system the text is read as, or None."""

def systems() -> list[dict[str, Any]]:
    """The systems: id, noun, extensions."""

def version() -> str:
    """The version of gordian this package was built from."""

def to_frame(records: Iterable[dict[str, Any]]) -> Any:
    """Records as a DataFrame, one row each, nested fields as dotted columns (pandas, else polars)."""
