"""The Hub path against hostile or broken endpoints (issue 11): every one served by tests/fake_hub.py.

Each test states the behaviour before the fix (huggingface_hub's ``hf_hub_download`` under
kvcalc 0b01778) and asserts the behaviour after it. No test touches the network.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import paths
import pytest
from fake_hub import (
    ACCEPTED_TOKEN,
    BOMB_BYTES,
    LLAMA_TINY,
    NO_LENGTH_BYTES,
    PRIVATE_TOKEN,
    FakeHub,
    FakeRepo,
)

from kvcalc import hub as H
from kvcalc.errors import ConfigError, KVCalcError
from kvcalc.sources import parse_config_text, resolve_config

ROOT = Path(paths.ROOT)
MARGIN_S = 3.0          # a loose upper bound over the timeout: the machine is shared and noisy



def _fails(fn, *args, **kwargs) -> H.SourceError:
    with pytest.raises(H.SourceError) as info:
        fn(*args, **kwargs)
    return info.value


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def _cache(tmp_path: Path) -> Path:
    return tmp_path / "kvcalc-hub-cache"         # what the fake_hub fixture sets KVCALC_HUB_CACHE to


def _new_threads(before: set[threading.Thread], bound_s: float = 1.0) -> list[str]:
    """Threads started since ``before`` still alive after joining each for at most ``bound_s`` in all
    (the fake Hub's own request handlers excepted)."""
    end = time.monotonic() + bound_s
    left = []
    for t in threading.enumerate():
        if t in before or t.name.endswith("(process_request_thread)"):
            continue
        t.join(max(0.0, end - time.monotonic()))
        if t.is_alive():
            left.append(t.name)
    return left


# ------------------------------------------------------------------------------------------
# 1. Server-chosen names never name a file; revisions are never paths
# ------------------------------------------------------------------------------------------
def test_traversal_etag_writes_nothing(fake_hub: FakeHub, tmp_path):
    # Before: hf_hub_download wrote blobs/<etag>, i.e. <tmp>/app/pages/9_Pwned.py, a page Streamlit runs.
    app_pages = tmp_path / "app" / "pages"
    app_pages.mkdir(parents=True)
    blobs = _cache(tmp_path) / "models--acme--evil" / "blobs"
    target = os.path.relpath(app_pages / "9_Pwned.py", blobs)
    real_pages = sorted(os.listdir(ROOT / "pages"))
    fake_hub.repos["acme/evil"] = FakeRepo(files={"config.json": b"import os; print('pwned')\n"},
                                           etag=f'"{target}"')
    fake_hub.repos["acme/evil-real"] = FakeRepo(files={"config.json": b"print('pwned')\n"},
                                                etag='"' + os.path.relpath(ROOT / "pages" / "9_Pwned.py", blobs) + '"')
    for repo_id in ("acme/evil", "acme/evil-real"):
        e = _fails(H.fetch_hub_config, repo_id, timeout=2)
        assert type(e) is H.UnsafeHubAnswerError and isinstance(e, KVCalcError)
        assert str(e).startswith(f"{fake_hub.url} answered for '{repo_id}' with the ETag '\"../")
        assert "nothing was saved" in str(e)
    assert [r.method for r in fake_hub.requests] == ["HEAD", "HEAD"]          # never downloaded
    assert _files(tmp_path / "app") == [] and _files(_cache(tmp_path)) == []
    assert sorted(os.listdir(ROOT / "pages")) == real_pages


@pytest.mark.parametrize("etag", ['"abc"', '"' + "A" * 40 + '"', '"' + "0" * 39 + '/"', '"' + "0" * 64 + '0"'])
def test_etag_must_be_a_sha1_or_sha256(fake_hub: FakeHub, tmp_path, etag):
    fake_hub.repos["acme/odd-etag"] = FakeRepo(files={"config.json": json.dumps(LLAMA_TINY).encode()}, etag=etag)
    assert type(_fails(H.fetch_hub_config, "acme/odd-etag", timeout=2)) is H.UnsafeHubAnswerError
    fake_hub.repos["acme/odd-etag"].etag = 'W/"' + "0" * 64 + '"'                # a weak sha256 is fine
    H.clear_cache()
    assert H.fetch_hub_config("acme/odd-etag", timeout=2).config == LLAMA_TINY


@pytest.mark.parametrize("revision", ["../../x", "../../../x", "main/../../x", "/etc/x", "refs\\x", "a//b"])
def test_revision_that_is_a_path_is_refused_before_any_request(fake_hub: FakeHub, tmp_path, revision):
    # Before: the revision was sent; a Hub that answered made hf_hub_download write refs/<revision>, e.g.
    # '../../../x' landed next to the cache folder.
    for fetch in (H.fetch_hub_config, H.fetch_weight_info):
        e = _fails(fetch, "acme/any-revision", revision=revision, timeout=2)
        assert type(e) is H.InvalidRevisionError
        assert str(e).startswith(f"'{H.shown(revision)}' is not a valid revision: use a branch, tag or commit")
    assert fake_hub.requests == [] and _files(tmp_path) == []
    assert H.fetch_hub_config("acme/any-revision", revision="refs/pr/1", timeout=2).revision == "refs/pr/1"


def test_cli_revision_traversal_is_a_one_line_error(fake_hub: FakeHub, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "kvcalc", "kv", "acme/any-revision", "--revision", "../../x",
                        "--batch", "1", "--context", "16"], cwd=work, env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "'../../x' is not a valid revision" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert fake_hub.requests == [] and _files(tmp_path) == []


def test_commit_hash_must_be_40_hex(fake_hub: FakeHub):
    fake_hub.repos["acme/odd-commit"] = FakeRepo(files={"config.json": json.dumps(LLAMA_TINY).encode()},
                                                 commit_header="../../x")
    e = _fails(H.fetch_hub_config, "acme/odd-commit", timeout=2)
    assert type(e) is H.UnsafeHubAnswerError and "commit hash '../../x'" in str(e)


def test_cache_root_inside_the_source_tree_is_relocated(fake_hub: FakeHub, tmp_path, monkeypatch, caplog):
    inside = ROOT / "pages" / "hub-cache"
    monkeypatch.setenv("KVCALC_HUB_CACHE", str(inside))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert H.hub_cache_dir() == str(tmp_path / "xdg" / "kvcalc" / "hub")
    assert H.fetch_hub_config("acme/tiny-llama", timeout=2).config == LLAMA_TINY
    assert not inside.exists()
    assert [p.name for p in _files(tmp_path / "xdg")] == ["config.json"]
    assert "inside the application's source tree" in caplog.text


# ------------------------------------------------------------------------------------------
# 2 and 16. One wall-clock deadline, and no thread left behind
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("repo_id,fetch", [("acme/trickle", H.fetch_hub_config),       # the HEAD trickles
                                           ("acme/trickle", H.fetch_weight_info),      # model_info trickles
                                           ("acme/trickle-download", H.fetch_hub_config)])   # the GET trickles
def test_trickling_server_times_out_on_the_wall_clock(fake_hub: FakeHub, tmp_path, repo_id, fetch):
    # Before: a HEAD / model_info read one byte at a time never hit a per-read timeout: 12.1 s here with
    # timeout=5 (the fake Hub gives up trickling after 12 s; 44.7 s against the server in the issue).
    before = set(threading.enumerate())
    start = time.monotonic()
    e = _fails(fetch, repo_id, timeout=2)
    elapsed = time.monotonic() - start
    assert type(e) is H.HubTimeoutError and elapsed < 2 + MARGIN_S
    assert str(e).startswith(f"the Hugging Face Hub did not answer within 2 s for '{repo_id}'")
    assert _new_threads(before) == [] and _files(_cache(tmp_path)) == []


def test_shared_token_check_counts_against_the_same_deadline(fake_hub: FakeHub):
    start = time.monotonic()
    e = _fails(H.fetch_hub_config, "acme/trickle", token="hf_operatorToken", shared_token=True, timeout=2)
    assert type(e) is H.HubTimeoutError and time.monotonic() - start < 2 + MARGIN_S


def test_failed_download_leaves_no_thread(fake_hub: FakeHub, tmp_path):
    # Before: hf_hub_download kept running in a daemon thread for the 3 s the server sleeps.
    before = set(threading.enumerate())
    e = _fails(H.fetch_hub_config, "acme/slow-download", timeout=1)
    assert type(e) is H.HubTimeoutError
    assert _new_threads(before, bound_s=0.5) == []
    assert _files(_cache(tmp_path)) == []


# ------------------------------------------------------------------------------------------
# 8. Wire and decompressed caps; nothing from a failed fetch stays
# ------------------------------------------------------------------------------------------
def test_gzip_bomb_stops_at_the_decompressed_cap(fake_hub: FakeHub, tmp_path):
    # Before: httpx inflated the body into the cache file, and the size mismatch with the HEAD was reported
    # as "cannot write the download cache ... (OSError)".
    start = time.monotonic()
    e = _fails(H.fetch_hub_config, "acme/gzip-bomb", timeout=10)
    assert type(e) is H.ConfigTooLargeError
    assert str(e) == (f"config.json of 'acme/gzip-bomb' is more than {H.MAX_CONFIG_BYTES:,} bytes once "
                      "decompressed, over the 16 MiB limit: a config.json is a few KiB; make sure it is the model's "
                      "config.json, not its weights, tokenizer or an index file.")
    assert BOMB_BYTES >= 4 * H.MAX_CONFIG_BYTES and time.monotonic() - start < 5
    assert _files(_cache(tmp_path)) == []


def test_large_config_without_content_length_is_not_kept(fake_hub: FakeHub, tmp_path):
    # Before: the 3 MiB file was downloaded whole and stayed in the cache after the "too large" error.
    e = _fails(H.fetch_hub_config, "acme/no-length", timeout=10)
    assert type(e) is H.ConfigTooLargeError and NO_LENGTH_BYTES > H.MAX_CONFIG_BYTES
    assert str(e).startswith(f"config.json of 'acme/no-length' is more than {H.MAX_CONFIG_BYTES:,} bytes, over")
    assert _files(_cache(tmp_path)) == []


@pytest.mark.parametrize("repo_id", ["acme/bad-json", "acme/bert", "acme/list-json"])
def test_invalid_config_is_not_kept(fake_hub: FakeHub, tmp_path, repo_id):
    _fails(H.fetch_hub_config, repo_id, timeout=2)
    assert _files(_cache(tmp_path)) == []


# ------------------------------------------------------------------------------------------
# 15. A broken download is not blamed on the cache (and an unwritable cache still is)
# ------------------------------------------------------------------------------------------
def test_truncated_download_says_what_failed(fake_hub: FakeHub, tmp_path):
    # Before: 5 resumed GETs, then "cannot reach the Hugging Face Hub ... (no network connection ...)".
    e = _fails(H.fetch_hub_config, "acme/truncated", timeout=5)
    assert type(e) is H.DownloadBrokenError and isinstance(e, H.HubUnavailableError)
    assert str(e).startswith(f"the download of config.json of 'acme/truncated' from {fake_hub.url} did not "
                             "complete: the connection closed after ")
    assert "cache" not in str(e) and _files(_cache(tmp_path)) == []


def test_unwritable_cache_says_so(fake_hub: FakeHub, tmp_path, monkeypatch):
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("")
    monkeypatch.setenv("KVCALC_HUB_CACHE", str(not_a_folder))
    e = _fails(H.fetch_hub_config, "acme/tiny-llama", timeout=2)
    assert type(e) is H.HubCacheError
    assert str(e) == (f"cannot write the download cache {not_a_folder} (NotADirectoryError): set KVCALC_HUB_CACHE "
                      "to a writable folder.")


# ------------------------------------------------------------------------------------------
# 14. The operator's token opens gated public models, never private ones
# ------------------------------------------------------------------------------------------
PRIVATE_MESSAGE = ("'acme/private-llama' is a private repository, and the app's shared token opens only public "
                   "models (gated ones included): to load it, enter your own Hugging Face token with read access "
                   "to it (it is used for your session only).")


def test_shared_token_is_refused_for_private_repos(fake_hub: FakeHub):
    for fetch in (H.fetch_hub_config, H.fetch_weight_info):
        e = _fails(fetch, "acme/private-llama", token=PRIVATE_TOKEN, shared_token=True, timeout=2)
        assert type(e) is H.PrivateRepoError and isinstance(e, H.AccessDeniedError)
        assert str(e) == PRIVATE_MESSAGE and PRIVATE_TOKEN not in repr(vars(e))
    assert H.fetch_hub_config("acme/private-llama", token=PRIVATE_TOKEN, timeout=2).config == LLAMA_TINY
    got = H.fetch_hub_config("acme/gated-llama", token=ACCEPTED_TOKEN, shared_token=True, timeout=2)
    assert got.config == LLAMA_TINY and got.authenticated
    e = _fails(resolve_config, "acme/private-llama", token=PRIVATE_TOKEN, shared_token=True, timeout=2)
    assert type(e) is H.PrivateRepoError


def test_token_is_not_sent_to_another_host(fake_hub: FakeHub):
    other = FakeHub()
    try:
        fake_hub.repos["acme/on-cdn"] = FakeRepo(kind="gated", files=fake_hub.repos["acme/tiny-llama"].files,
                                                 location=f"{other.url}/acme/tiny-llama/resolve/main/config.json")
        got = H.fetch_hub_config("acme/on-cdn", token=ACCEPTED_TOKEN, timeout=2)
        assert got.config == LLAMA_TINY
        assert [(r.method, r.authorization) for r in fake_hub.requests] == [("HEAD", f"Bearer {ACCEPTED_TOKEN}")]
        assert [(r.method, r.authorization) for r in other.requests] == [("GET", None)]
    finally:
        other.close()


def test_dashboard_uses_the_visitors_token_for_private_repos(fake_hub: FakeHub, monkeypatch):
    pytest.importorskip("streamlit")
    from dashboard.sources import load_model

    monkeypatch.setenv("HF_TOKEN", PRIVATE_TOKEN)           # the operator's token, for every visitor
    anonymous = load_model("hub", "acme/private-llama")
    assert anonymous.config is None and anonymous.error == PRIVATE_MESSAGE
    visitor = load_model("hub", "acme/private-llama", token=PRIVATE_TOKEN)
    assert visitor.config == LLAMA_TINY and visitor.error is None and visitor.origin == "hub"
    monkeypatch.setenv("HF_TOKEN", ACCEPTED_TOKEN)          # a gated public model opens with the operator's
    gated = load_model("hub", "acme/gated-llama")
    assert gated.config == LLAMA_TINY and gated.error is None


# ------------------------------------------------------------------------------------------
# 4. Lone surrogates are refused at config-text parsing
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,field", [
    (json.dumps(dict(LLAMA_TINY, model_type="\ud800llama")), "model_type"),
    (json.dumps(dict(LLAMA_TINY, text_config={"model_type": "llama\udfff"})), "text_config.model_type"),
    (json.dumps(dict(LLAMA_TINY, architectures=["Llama\ud800"])), "architectures[0]"),
])
def test_lone_surrogate_is_a_config_error(text, field):
    assert "\\ud" in text                                   # the JSON escape, as a file would have it
    with pytest.raises(H.InvalidConfigError) as info:
        parse_config_text(text)
    e = info.value
    assert isinstance(e, ConfigError) and e.field == field
    assert str(e).startswith(f"pasted config cannot be planned: config field '{field}' = ")
    assert "lone UTF-16 surrogate" in str(e)
    str(e).encode("utf-8")                                  # the message itself is printable


def test_lone_surrogate_key_is_a_config_error():
    with pytest.raises(H.InvalidConfigError) as info:
        parse_config_text(json.dumps(dict(LLAMA_TINY, **{"x\ud800": 1})))
    assert info.value.field == "x?" and "the field name contains a lone UTF-16 surrogate" in str(info.value)


def test_cli_lone_surrogate_is_a_one_line_error():
    # Before: a UnicodeEncodeError traceback when the CLI printed the model_type.
    text = json.dumps(dict(LLAMA_TINY, model_type="\ud800llama"))
    p = subprocess.run([sys.executable, "-m", "kvcalc", "kv", "-", "--batch", "1", "--context", "16"], input=text,
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "config field 'model_type'" in p.stderr and len(p.stderr.strip().splitlines()) == 1
