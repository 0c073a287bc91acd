"""``parse_startup_log``: which engine wrote a log, its version, and every line it recognises."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from kvcalc.startup_log.formats import log_modules
from kvcalc.startup_log.rules import Rule, apply
from kvcalc.startup_log.text import CleanLine, clean_lines, decode
from kvcalc.startup_log.types import LogLine, StartupLog, StartupLogError

MAX_UNKNOWN_KEPT = 50  # unrecognised lines kept as text (the rest are only counted)


@dataclass(frozen=True)
class EngineFormats:
    """One engine's line formats: its rules, version rules, expected lines and signature markers."""

    name: str
    rules: tuple[Rule, ...]
    version_rules: tuple[Rule, ...]
    expected: tuple[tuple[tuple[str, ...], str], ...]
    signatures: tuple[str, ...]

    @property
    def any_marker(self) -> re.Pattern[str]:
        """One pattern for all the engine's literal markers: lines without any are skipped quickly."""
        return _markers(self.name, tuple(r.marker for r in self.rules + self.version_rules))


@cache
def _markers(_name: str, markers: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(m) for m in sorted(set(markers), key=len, reverse=True)))


@cache
def engine_formats() -> tuple[EngineFormats, ...]:
    """The line formats of every engine whose object names a startup-log module (kvcalc.startup_log.formats)."""
    return tuple(EngineFormats(m.ENGINE, m.RULES, m.VERSION_RULES, m.EXPECTED, m.SIGNATURES) for m in log_modules())


def _read(formats: EngineFormats, lines: list[CleanLine]) -> tuple[list[LogLine], set[int], LogLine | None]:
    """Every line ``formats`` recognises, the numbers of those lines and the first version line."""
    found: list[LogLine] = []
    used: set[int] = set()
    version: LogLine | None = None
    seen: set[tuple[str, int]] = set()
    any_marker = formats.any_marker
    for i, line in enumerate(lines):
        if not line.text or any_marker.search(line.text) is None:
            continue
        following = lines[i + 1] if i + 1 < len(lines) else None
        for rule in formats.rules:
            got = apply(rule, line, following)
            if got is not None and (got.kind, got.line_no) not in seen:
                seen.add((got.kind, got.line_no))
                found.append(got)
                used.add(line.line_no)
        if version is None:
            for rule in formats.version_rules:
                version = version or apply(rule, line, None)
            if version is not None:
                used.add(line.line_no)
    return found, used, version


def _missing(formats: EngineFormats, found: list[LogLine]) -> tuple[str, ...]:
    kinds = {x.kind for x in found}
    return tuple(text for options, text in formats.expected if not kinds.intersection(options))


def parse_startup_log(data: str | bytes, engine: str | None = None) -> StartupLog:
    """Read a pasted engine startup log (text or UTF-8 bytes, at most 4 MiB; StartupLogError beyond).

    The engine is the one whose line formats match most lines (vLLM 0.4-0.33, SGLang 0.4-0.5,
    llama.cpp 2024-2026, TensorRT-LLM 0.5-1.x; see each module for the engine source of every
    format). Timestamps, colour codes, ``(EngineCore_DP0 pid=...)`` / ``[... TP0]`` / docker-compose
    / journald prefixes are skipped: each format is found by its literal marker anywhere in a line and
    the prefix before it names the rank. A line wrapped before its end is joined with the next one.
    Memory is in bytes (GiB = 2**30), sizes in tokens / blocks. Unrecognised lines are kept as text.
    ``engine`` ("vllm", "sglang", "llama_cpp", "tensorrt_llm") reads the log with that engine's
    formats only.

    >>> log = parse_startup_log('''(EngineCore_DP0 pid=7) INFO [gpu_worker.py:298] Available KV cache memory: 6.51 GiB
    ... (EngineCore_DP0 pid=7) INFO [kv_cache_utils.py:864] GPU KV cache size: 42,656 tokens''')
    >>> log.engine, log.value("kv_tokens").amount, round(log.value("available_kv").gib, 2)
    ('vllm', 42656, 6.51)
    >>> log.missing[0]
    "weights: 'Model loading took X GiB' (0.7+) or 'Loading model weights took X GB' (older)"
    """
    lines, truncated = clean_lines(decode(data))
    known = engine_formats()
    engines = [f for f in known if engine in (None, f.name)]
    if not engines:
        raise StartupLogError(f"unknown engine {engine!r}; one of {', '.join(f.name for f in known)}")
    results = [(f, *_read(f, lines)) for f in engines]
    scored = sorted(
        results,
        key=lambda r: (len(r[2]), sum(s in x.text for x in lines[:2000] for s in r[0].signatures)),
        reverse=True,
    )
    best, found, used, version = scored[0]
    others = tuple(f.name for f, fnd, _u, _v in scored[1:] if fnd and f.name != best.name and _distinct(fnd, used))
    if not found:
        unknown = [x.raw for x in lines if x.text.strip()]
        hits = {f.name: sum(sig in x.text for x in lines[:2000] for sig in f.signatures) for f in engines}
        named = max(hits, key=lambda name: hits[name]) if any(hits.values()) else None
        formats = next((f for f in engines if f.name == named), None)
        missing = _missing(formats, []) if formats else (
            "no line of a known engine (vLLM, SGLang, llama.cpp, TensorRT-LLM) was recognised",)
        return StartupLog(named or "unknown", None, None, (), missing, tuple(unknown[:MAX_UNKNOWN_KEPT]), len(unknown),
                          (), truncated, len(lines))
    unknown = [x.raw for x in lines if x.line_no not in used and x.text.strip()]
    found.sort(key=lambda x: x.line_no)
    return StartupLog(
        best.name,
        version.values[0].text if version else None,
        version.raw if version else None,
        tuple(found),
        _missing(best, found),
        tuple(unknown[:MAX_UNKNOWN_KEPT]),
        len(unknown),
        others,
        truncated,
        len(lines),
        tuple(dict.fromkeys(x.kind for x in found)),
    )


def _distinct(found: list[LogLine], used_by_best: set[int]) -> bool:
    """True when another engine's lines are lines the chosen engine did not read."""
    return any(x.line_no not in used_by_best for x in found)
