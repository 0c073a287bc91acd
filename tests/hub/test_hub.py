"""Model sources: Hub fetch (against a local fake Hub), bundled fallback, files and pasted configs.

No test touches the real network: the ``fake_hub`` fixture points ``HF_ENDPOINT`` at a server on
127.0.0.1, and "network down" is a closed port on 127.0.0.1.
"""
from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
import traceback

import pytest
from fake_hub import ACCEPTED_TOKEN, BERT_BASE, HUGE_BYTES, LLAMA_TINY, PRIVATE_TOKEN, FakeHub, closed_port_url
from paths import load_config

from kvcalc import hub as H
from kvcalc.catalog import catalog
from kvcalc.errors import ConfigError, KVCalcError
from kvcalc.sources import ResolvedConfig, parse_config_text, pasted_config, resolve_config

TOKENS = "HF_TOKEN, Streamlit secrets or the token field"
USE_INSTEAD = "or use the bundled catalog or a pasted config.json"



def _fails(fn, *args, **kwargs) -> H.SourceError:
    with pytest.raises(H.SourceError) as info:
        fn(*args, **kwargs)
    return info.value


def _one_line(e: BaseException) -> str:
    text = str(e)
    assert "\n" not in text
    return text


# ------------------------------------------------------------------------------------------
# Hub fetch: the happy path, the cache folder, the request shapes
# ------------------------------------------------------------------------------------------
def test_fetch_config_from_the_hub(fake_hub: FakeHub, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_implicitTokenThatMustNotBeSent")   # token=None sends nothing
    got = H.fetch_hub_config("acme/tiny-llama", timeout=2)
    assert got.config == LLAMA_TINY
    assert got.repo_id == "acme/tiny-llama" and got.revision is None and not got.authenticated
    assert got.commit == fake_hub.repos["acme/tiny-llama"].commit
    assert got.endpoint == fake_hub.url
    # One HEAD (commit, ETag, size) and one GET, both under one deadline; no token was sent.
    assert [(r.method, r.path) for r in fake_hub.requests] == [
        ("HEAD", "/acme/tiny-llama/resolve/main/config.json"),
        ("GET", "/acme/tiny-llama/resolve/main/config.json")]
    assert all(r.authorization is None for r in fake_hub.requests)
    # Downloaded into our own cache folder, not the global Hugging Face cache.
    cached = list((tmp_path / "kvcalc-hub-cache").rglob("config.json"))
    assert len(cached) == 1 and json.loads(cached[0].read_text()) == LLAMA_TINY


def test_revision_is_passed_through(fake_hub: FakeHub):
    commit = fake_hub.repos["acme/tiny-llama"].commit
    got = H.fetch_hub_config("acme/tiny-llama", revision=commit, timeout=2)
    assert got.revision == commit and got.commit == commit
    assert fake_hub.requests[0].path == f"/acme/tiny-llama/resolve/{commit}/config.json"


def test_second_fetch_and_resolve_make_no_request(fake_hub: FakeHub):
    first = resolve_config("acme/tiny-llama", timeout=2)
    n = len(fake_hub.requests)
    assert n == 2
    second = resolve_config("acme/tiny-llama", timeout=2)
    H.fetch_hub_config("acme/tiny-llama", timeout=2)
    assert len(fake_hub.requests) == n
    assert first == second and first.origin == "hub" and first.name == "acme/tiny-llama"
    second.config["hidden_size"] = 1          # a caller's edits never reach the cache
    assert resolve_config("acme/tiny-llama").config["hidden_size"] == LLAMA_TINY["hidden_size"]
    # Errors are cached briefly too: a page re-run does not wait for the same failure again.
    _fails(H.fetch_hub_config, "acme/broken", timeout=2)
    n = len(fake_hub.requests)
    again = _fails(H.fetch_hub_config, "acme/broken", timeout=2)
    assert len(fake_hub.requests) == n and isinstance(again, H.HubServerError) and again.__context__ is None
    H.clear_cache()
    resolve_config("acme/tiny-llama", timeout=2)
    # Fetched again: one HEAD, and no GET since the file for that ETag is in our download folder already.
    assert [r.method for r in fake_hub.requests[n:]] == ["HEAD"]


def test_cache_separates_tokens(fake_hub: FakeHub):
    H.fetch_hub_config("acme/gated-llama", token=ACCEPTED_TOKEN, timeout=2)
    n = len(fake_hub.requests)
    # Another token must not be served the file fetched with the first one.
    e = _fails(H.fetch_hub_config, "acme/gated-llama", token="hf_someoneElsesToken", timeout=2)
    assert isinstance(e, H.GatedModelError) and len(fake_hub.requests) > n
    assert H.token_identity(ACCEPTED_TOKEN) == H.token_identity(f" {ACCEPTED_TOKEN} ")
    assert H.token_identity(ACCEPTED_TOKEN) != H.token_identity("hf_someoneElsesToken")
    assert ACCEPTED_TOKEN not in H.token_identity(ACCEPTED_TOKEN) and H.token_identity(None) is None


# ------------------------------------------------------------------------------------------
# The token: sent as a Bearer header, and nowhere else
# ------------------------------------------------------------------------------------------
def _token_nowhere(token: str, *things: object, caplog, capsys) -> None:
    for thing in things:
        assert token not in repr(thing) and token not in str(thing)
        if isinstance(thing, BaseException):
            assert thing.__cause__ is None and thing.__context__ is None
            assert token not in "".join(traceback.format_exception(thing))
            assert token not in repr(vars(thing))
    assert token not in caplog.text
    assert all(token not in str(r.args) and token not in r.getMessage() for r in caplog.records)
    out, err = capsys.readouterr()
    assert token not in out and token not in err


def test_token_reaches_the_hub_and_nothing_else(fake_hub: FakeHub, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="huggingface_hub")
    got = H.fetch_hub_config("acme/gated-llama", token=ACCEPTED_TOKEN, timeout=2)
    info = H.fetch_weight_info("acme/gated-llama", token=ACCEPTED_TOKEN, timeout=2)
    resolved = resolve_config("acme/gated-llama", token=ACCEPTED_TOKEN, timeout=2)
    assert got.authenticated and got.config == LLAMA_TINY and resolved.origin == "hub"
    assert {r.authorization for r in fake_hub.requests} == {f"Bearer {ACCEPTED_TOKEN}"}
    assert {r.method for r in fake_hub.requests} == {"HEAD", "GET"}
    _token_nowhere(ACCEPTED_TOKEN, got, info, resolved, caplog=caplog, capsys=capsys)


@pytest.mark.parametrize("repo_id,kind", [("acme/gated-llama", H.GatedModelError),
                                          ("acme/private-llama", H.AccessDeniedError),
                                          ("acme/missing", H.RepoNotFoundError),
                                          ("acme/broken", H.HubServerError),
                                          ("acme/gguf-only", H.NoConfigError)])
def test_token_is_not_in_errors(fake_hub: FakeHub, caplog, capsys, repo_id, kind):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="huggingface_hub")
    token = "hf_secretTokenThatMustNeverLeak42"
    e = _fails(H.fetch_hub_config, repo_id, token=token, timeout=2)
    assert type(e) is kind
    assert all(r.authorization == f"Bearer {token}" for r in fake_hub.requests)
    _token_nowhere(token, e, caplog=caplog, capsys=capsys)


def test_token_that_cannot_be_a_header_is_refused_without_echo(fake_hub: FakeHub):
    token = "hf_abc\ndef ghi"
    e = _fails(H.fetch_hub_config, "acme/tiny-llama", token=token)
    assert type(e) is H.InvalidTokenError
    assert _one_line(e) == ("the Hugging Face token contains spaces, line breaks or non-ASCII characters, which no "
                            "token has: copy it again from your Hub settings (Access Tokens) and set it via "
                            f"{TOKENS}.")
    assert "hf_abc" not in str(e) and fake_hub.requests == []


def test_token_from_env(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "  hf_fromTheEnvironment  ")
    assert H.token_from_env() == "hf_fromTheEnvironment"
    monkeypatch.setenv("HF_TOKEN", "   ")
    assert H.token_from_env() is None
    monkeypatch.delenv("HF_TOKEN")
    assert H.token_from_env() is None


# ------------------------------------------------------------------------------------------
# Each fault: its typed error and its exact message
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("repo_id,problem", [
    ("../etc/passwd", "it has more than one '/'"),
    ("a--b/c", "'--' and '..' are not allowed"),
    ("org/a..b", "'--' and '..' are not allowed"),
    ("org/" + "x" * 97, "each part may have at most 96 characters"),
    ("org/na me", "only letters, digits, '-', '_' and '.' are allowed"),
    ("org/model.git", "it cannot end in '.git'"),
    ("org/-model", "names cannot start or end with '-' or '.'"),
    ("", "it is empty"),
])
def test_malformed_repo_id_fails_before_any_request(fake_hub: FakeHub, repo_id, problem):
    for fetch in (H.fetch_hub_config, H.fetch_weight_info):
        e = _fails(fetch, repo_id)
        assert type(e) is H.InvalidRepoIdError and isinstance(e, ValueError)
        assert _one_line(e) == (f"'{H.shown(repo_id)}' is not a valid Hugging Face model id: {problem}. Use the "
                                "form 'organization/model-name', e.g. meta-llama/Llama-3.1-8B.")
    assert fake_hub.requests == []


def test_malformed_id_through_resolve_never_reads_files_or_the_network(fake_hub: FakeHub):
    e = _fails(resolve_config, "../etc/passwd")           # allow_files is off by default
    assert type(e) is H.InvalidRepoIdError
    assert str(e).startswith("'../etc/passwd' is not a valid Hugging Face model id")
    e = _fails(resolve_config, "a--b/c", offline=True)
    assert type(e) is H.InvalidRepoIdError
    assert fake_hub.requests == []


def test_repo_not_found(fake_hub: FakeHub):
    e = _fails(H.fetch_hub_config, "acme/missing")
    assert type(e) is H.RepoNotFoundError and e.repo_id == "acme/missing"
    assert _one_line(e) == ("'acme/missing' was not found on the Hugging Face Hub: check the spelling "
                            "(organization/model-name); if the repository is private, provide a read token via "
                            f"{TOKENS}.")
    e = _fails(H.fetch_hub_config, "acme/missing", token="hf_anyToken")
    assert type(e) is H.RepoNotFoundError
    assert _one_line(e) == ("'acme/missing' was not found on the Hugging Face Hub, or the token given has no "
                            "access to it: check the spelling (organization/model-name) and the token's "
                            "permissions.")
    # Private repo, no token: the Hub says 401 RepoNotFound.
    e = _fails(H.fetch_hub_config, "acme/private-llama")
    assert type(e) is H.RepoNotFoundError


def test_private_repo_token(fake_hub: FakeHub):
    e = _fails(H.fetch_hub_config, "acme/private-llama", token="hf_wrongToken")
    assert type(e) is H.AccessDeniedError and e.status == 401
    assert _one_line(e) == ("the Hugging Face Hub rejected the token given for 'acme/private-llama' (HTTP 401): "
                            f"check that it is a valid, unexpired read token and set it again via {TOKENS}.")
    assert H.fetch_hub_config("acme/private-llama", token=PRIVATE_TOKEN).config == LLAMA_TINY


def test_gated_repo(fake_hub: FakeHub):
    page = f"{fake_hub.url}/acme/gated-llama"
    e = _fails(H.fetch_hub_config, "acme/gated-llama")
    assert type(e) is H.GatedModelError and isinstance(e, H.AccessDeniedError)
    assert e.status == 401 and not e.token_given and not e.bundled
    assert _one_line(e) == (f"'acme/gated-llama' is gated: accept its license on {page} while logged in, then "
                            f"provide a read token via {TOKENS}.")
    e = _fails(H.fetch_hub_config, "acme/gated-llama", token="hf_noAccessYet")
    assert type(e) is H.GatedModelError and e.status == 403 and e.token_given
    assert _one_line(e) == (f"'acme/gated-llama' is gated and the token given has no access to it yet: accept its "
                            f"license on {page} with the account that owns the token (approval can take a while), "
                            "then retry.")


def test_gated_repo_mentions_the_bundled_copy(fake_hub: FakeHub):
    e = _fails(H.fetch_hub_config, "meta-llama/Llama-3.1-8B")
    assert type(e) is H.GatedModelError and e.bundled
    assert _one_line(e) == (f"'meta-llama/Llama-3.1-8B' is gated: accept its license on "
                            f"{fake_hub.url}/meta-llama/Llama-3.1-8B while logged in, then provide a read token via "
                            f"{TOKENS}. Meanwhile the bundled snapshot of meta-llama/Llama-3.1-8B works without a "
                            "token.")


def test_no_config_json_in_repo(fake_hub: FakeHub):
    e = _fails(H.fetch_hub_config, "acme/gguf-only")
    assert type(e) is H.NoConfigError
    assert _one_line(e) == ("'acme/gguf-only' has no config.json (GGUF-only and other non-transformers "
                            "repositories have none): use the original transformers repository the weights come "
                            "from, or paste its config.json.")


def test_revision_not_found(fake_hub: FakeHub):
    e = _fails(H.fetch_hub_config, "acme/tiny-llama", revision="v9")
    assert type(e) is H.RevisionNotFoundError
    assert _one_line(e) == ("revision 'v9' does not exist in 'acme/tiny-llama': use one of its branches, tags or "
                            "commits, or leave the revision empty for the default branch.")
    e = _fails(H.fetch_hub_config, "acme/tiny-llama", revision="bad rev")
    assert type(e) is H.InvalidRevisionError


def test_server_error_is_immediate(fake_hub: FakeHub):
    start = time.monotonic()
    e = _fails(H.fetch_hub_config, "acme/broken", timeout=5)
    assert time.monotonic() - start < 2          # no retry loop (hf_hub_download alone takes ~23 s)
    assert type(e) is H.HubServerError and e.status == 500 and isinstance(e, H.HubUnavailableError)
    assert _one_line(e) == ("the Hugging Face Hub answered HTTP 500 for 'acme/broken' (a server-side problem): "
                            f"retry in a few minutes, {USE_INSTEAD} meanwhile.")
    assert len(fake_hub.requests) == 1


@pytest.mark.parametrize("repo_id", ["acme/slow", "acme/slow-download"])
def test_slow_server_times_out_within_the_timeout(fake_hub: FakeHub, repo_id):
    start = time.monotonic()
    e = _fails(H.fetch_hub_config, repo_id, timeout=1)
    elapsed = time.monotonic() - start
    assert 0.9 < elapsed < 2.5                   # the server would take 3 s (and huggingface_hub retry for minutes)
    assert type(e) is H.HubTimeoutError
    assert _one_line(e) == (f"the Hugging Face Hub did not answer within 1 s for '{repo_id}': check your connection "
                            f"and retry, {USE_INSTEAD} meanwhile.")


def test_malformed_json(fake_hub: FakeHub):
    e = _fails(H.fetch_hub_config, "acme/bad-json")
    assert type(e) is H.ConfigJSONError
    assert _one_line(e) == ("config.json of 'acme/bad-json' is not valid JSON (line 2, column 3: Expecting property "
                            "name enclosed in double quotes): the file in the repository is broken; paste a "
                            "corrected config.json instead.")
    e = _fails(H.fetch_hub_config, "acme/list-json")
    assert type(e) is H.ConfigNotObjectError
    assert _one_line(e) == ("config.json of 'acme/list-json' is a JSON list, not an object: a config.json is one "
                            "JSON object that starts with '{'; use the whole file.")


def test_oversized_config_is_not_downloaded(fake_hub: FakeHub):
    e = _fails(H.fetch_hub_config, "acme/huge-config")
    assert type(e) is H.ConfigTooLargeError
    assert _one_line(e) == (f"config.json of 'acme/huge-config' is {HUGE_BYTES + 11:,} bytes, over the 16 MiB limit: "
                            "a config.json is a few KiB; make sure it is the model's config.json, not its weights, "
                            "tokenizer or an index file.")
    assert [r.method for r in fake_hub.requests] == ["HEAD"]


@pytest.mark.parametrize("repo_id,kind", [("acme/bert", "bert"), ("acme/vit", "vit")])
def test_not_a_decoder(fake_hub: FakeHub, repo_id, kind):
    e = _fails(H.fetch_hub_config, repo_id)
    assert type(e) is H.NotADecoderError
    assert isinstance(e, ConfigError) and e.field == "model_type" and e.value == kind
    assert _one_line(e) == (f"config.json of '{repo_id}' is a '{kind}' model, not a decoder language model: it has "
                            "no KV cache to plan; choose a decoder (causal) LLM such as meta-llama/Llama-3.1-8B.")


def test_no_network(fake_hub: FakeHub, monkeypatch):
    down = closed_port_url()
    monkeypatch.setenv("HF_ENDPOINT", down)
    for fetch in (H.fetch_hub_config, H.fetch_weight_info):
        e = _fails(fetch, "acme/tiny-llama", timeout=2)
        assert type(e) is H.HubOfflineError and e.reason == "no network connection"
        assert _one_line(e) == (f"cannot reach the Hugging Face Hub at {down} (no network connection, or the host "
                                f"refused it): check your connection, proxy or HF_ENDPOINT, {USE_INSTEAD}.")


def test_offline_mode_env_makes_no_request(fake_hub: FakeHub, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    e = _fails(H.fetch_hub_config, "acme/tiny-llama")
    assert type(e) is H.HubOfflineError
    assert _one_line(e) == ("offline mode is on (HF_HUB_OFFLINE), so 'acme/tiny-llama' cannot be fetched from the "
                            f"Hub: unset HF_HUB_OFFLINE, {USE_INSTEAD}.")
    assert fake_hub.requests == []
    r = resolve_config("google/gemma-3-1b-it")
    assert r.origin == "bundled"
    assert r.notice == "Hub unreachable (offline mode is on): using the bundled snapshot of google/gemma-3-1b-it"


def test_every_error_is_a_kvcalc_error():
    for name in dir(H):
        obj = getattr(H, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and obj.__module__.startswith(H.__name__ + ".") \
                and not name.startswith("_"):
            assert issubclass(obj, H.SourceError) and issubclass(obj, KVCalcError), name


# ------------------------------------------------------------------------------------------
# resolve_config: bundled, Hub, fallbacks, files
# ------------------------------------------------------------------------------------------
def test_network_down_falls_back_to_the_bundled_snapshot(fake_hub: FakeHub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", closed_port_url())
    r = resolve_config("mistralai/Mistral-7B-v0.1", timeout=2)
    assert r.origin == "bundled" and r.name == "mistralai/Mistral-7B-v0.1"
    assert r.config == load_config("mistralai/Mistral-7B-v0.1") and r.gated is True   # gated on the Hub
    assert r.notice == ("Hub unreachable (no network connection): using the bundled snapshot of "
                        "mistralai/Mistral-7B-v0.1")
    r = resolve_config("Mistral-7B-v0.1", revision="v0.2", timeout=2)     # display name, revision asked
    assert r.notice == ("Hub unreachable (no network connection): using the bundled snapshot of "
                        "mistralai/Mistral-7B-v0.1; revision 'v0.2' was not checked")
    e = _fails(resolve_config, "acme/not-bundled", timeout=2)           # nothing to fall back to
    assert type(e) is H.HubOfflineError


def test_timeout_and_server_error_fall_back_to_the_bundled_snapshot(fake_hub: FakeHub):
    start = time.monotonic()
    r = resolve_config("meta-llama/Llama-3.2-1B", timeout=1)
    assert time.monotonic() - start < 1 + 3      # the 1 s deadline holds (3 s slack: shared, noisy machines)
    assert r.origin == "bundled" and r.config == load_config("meta-llama/Llama-3.2-1B")
    assert r.notice == "Hub unreachable (no answer within 1 s): using the bundled snapshot of meta-llama/Llama-3.2-1B"
    r = resolve_config("Qwen/Qwen3-8B", timeout=2)
    assert r.origin == "bundled"
    assert r.notice == "Hub unreachable (server error HTTP 500): using the bundled snapshot of Qwen/Qwen3-8B"
    assert type(_fails(resolve_config, "acme/slow", timeout=1)) is H.HubTimeoutError
    assert type(_fails(resolve_config, "acme/broken", timeout=1)) is H.HubServerError


def test_gated_bundled_model_without_token_gives_the_labelled_snapshot(fake_hub: FakeHub):
    r = resolve_config("meta-llama/Llama-3.1-8B", timeout=2)
    assert r.origin == "bundled" and r.gated is True
    assert r.config == load_config("meta-llama/Llama-3.1-8B")
    assert r.notice == ("meta-llama/Llama-3.1-8B is gated on the Hub and no token was given: using the bundled "
                        "snapshot of its config. For the live file, accept the license on "
                        f"{fake_hub.url}/meta-llama/Llama-3.1-8B and provide a token via {TOKENS}.")
    r = resolve_config("meta-llama/Llama-3.1-8B", token="hf_noAccessYet", timeout=2)
    assert r.origin == "bundled" and r.notice.startswith(
        "meta-llama/Llama-3.1-8B is gated on the Hub and the token given has no access yet: using the bundled")
    r = resolve_config("meta-llama/Llama-3.1-8B", token=ACCEPTED_TOKEN, timeout=2)
    assert r.origin == "hub" and r.gated is True and r.notice is None and r.config == LLAMA_TINY
    # Not bundled: the error, which says how to get access.
    assert type(_fails(resolve_config, "acme/gated-llama", timeout=2)) is H.GatedModelError


def test_other_hub_errors_are_not_hidden_by_a_fallback(fake_hub: FakeHub):
    for repo_id, kind in [("acme/missing", H.RepoNotFoundError), ("acme/gguf-only", H.NoConfigError),
                          ("acme/bad-json", H.ConfigJSONError), ("acme/bert", H.NotADecoderError)]:
        assert type(_fails(resolve_config, repo_id, timeout=2)) is kind


@pytest.mark.parametrize("entry", catalog(), ids=lambda e: e.hub_id)
def test_every_bundled_entry_resolves_offline(entry, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", closed_port_url())      # any request would fail loudly
    for name in (entry.hub_id, entry.display_name, entry.hub_id.lower()):
        r = resolve_config(name, offline=True)
        assert r.origin == "bundled" and r.name == entry.hub_id and r.notice is None
        assert r.gated is entry.gated and r.config == load_config(entry.hub_id)


def test_offline_model_not_bundled(fake_hub: FakeHub):
    e = _fails(resolve_config, "acme/tiny-llama", offline=True)
    assert type(e) is H.NotBundledError
    assert _one_line(e) == ("'acme/tiny-llama' is not in the bundled catalog and offline mode is on: turn offline "
                            "mode off to fetch it from the Hub, or paste its config.json.")
    r = resolve_config("meta-llama/Llama-3.1-8B", offline=True, revision="main")
    assert r.notice == "offline: using the bundled snapshot of meta-llama/Llama-3.1-8B; revision 'main' was not checked"
    assert fake_hub.requests == []


def test_bundled_name_is_fetched_from_the_hub_when_online(fake_hub: FakeHub):
    r = resolve_config("Llama-3.1-8B", token=ACCEPTED_TOKEN, timeout=2)     # display name -> Hub id
    assert r.origin == "hub" and r.name == "meta-llama/Llama-3.1-8B"
    assert fake_hub.requests[0].path == "/meta-llama/Llama-3.1-8B/resolve/main/config.json"


def test_local_file_only_when_allowed(fake_hub: FakeHub, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_TINY))
    r = resolve_config(str(path), allow_files=True)
    assert r == ResolvedConfig(config=LLAMA_TINY, origin="file", name=str(path))
    assert resolve_config(str(tmp_path), allow_files=True).config == LLAMA_TINY     # a model folder
    e = _fails(resolve_config, str(tmp_path / "nope.json"), allow_files=True)
    assert type(e) is H.ConfigFileError
    shown = H.shown(str(tmp_path / "nope.json"), 80)     # a long temporary path (xdist workers) is shortened
    assert _one_line(e) == (f"config file '{shown}' does not exist: check the path, or give a Hub "
                            "id such as meta-llama/Llama-3.1-8B.")
    (tmp_path / "bert.json").write_text(json.dumps(BERT_BASE))
    assert type(_fails(resolve_config, str(tmp_path / "bert.json"), allow_files=True)) is H.NotADecoderError
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (H.MAX_CONFIG_BYTES + 1))
    assert type(_fails(resolve_config, str(big), allow_files=True)) is H.ConfigTooLargeError
    # A bundled file name that is not a local file is the bundled model.
    r = resolve_config("meta-llama__Llama-3.2-1B.json", allow_files=True, offline=True)
    assert r.origin == "bundled" and r.name == "meta-llama/Llama-3.2-1B"
    # Without allow_files a path is only ever a (here invalid) Hub id.
    assert type(_fails(resolve_config, str(path))) is H.InvalidRepoIdError
    assert fake_hub.requests == []


def test_empty_source():
    e = _fails(resolve_config, "   ")
    assert type(e) is H.InvalidRepoIdError
    assert _one_line(e) == ("no model given: pick a bundled model, enter a Hub id such as meta-llama/Llama-3.1-8B, "
                            "or paste a config.json.")


# ------------------------------------------------------------------------------------------
# Pasted / uploaded text
# ------------------------------------------------------------------------------------------
def test_pasted_config_ok():
    text = json.dumps(LLAMA_TINY)
    assert parse_config_text(text) == LLAMA_TINY
    assert parse_config_text(text.encode()) == LLAMA_TINY
    assert parse_config_text(b"\xef\xbb\xbf" + text.encode()) == LLAMA_TINY        # UTF-8 BOM (Windows editors)
    r = pasted_config(text)
    assert r.origin == "pasted" and r.name == "pasted config" and r.notice is None


def test_pasted_over_the_cap():
    body = json.dumps(LLAMA_TINY)[:-1] + ', "pad": "' + "x" * H.MAX_CONFIG_BYTES + '"}'
    for data in (body, body.encode()):
        e = _fails(parse_config_text, data)
        assert type(e) is H.ConfigTooLargeError
        assert _one_line(e) == (f"pasted config is {len(body.encode()):,} bytes, over the 16 MiB limit: a config.json "
                                "is a few KiB; make sure it is the model's config.json, not its weights, tokenizer "
                                "or an index file.")
    assert H.MAX_CONFIG_BYTES == 16 << 20


@pytest.mark.parametrize("depth", [65, 100, 100_000])
def test_pasted_too_deep(depth):
    e = _fails(parse_config_text, '{"a": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}")
    assert type(e) is H.ConfigTooDeepError
    assert _one_line(e) == ("pasted config nests deeper than 64 levels: a real config.json is a few levels deep; "
                            "make sure it is the model's config.json.")


def test_pasted_depth_at_the_cap_is_accepted_by_the_parser():
    cfg = dict(LLAMA_TINY, extra={"a": [[[]]]})
    assert parse_config_text(json.dumps(cfg)) == cfg
    assert H._json_depth(json.loads('{"a": ' + "[" * 63 + "]" * 63 + "}")) == 64


@pytest.mark.parametrize("text,kind", [("[1, 2]", "list"), ('"config"', "string"), ("42", "number"),
                                       ("null", "null"), ("true", "boolean")])
def test_pasted_not_an_object(text, kind):
    e = _fails(parse_config_text, text)
    assert type(e) is H.ConfigNotObjectError
    assert _one_line(e) == (f"pasted config is a JSON {kind}, not an object: a config.json is one JSON object that "
                            "starts with '{'; use the whole file.")


def test_pasted_bad_json_and_bad_bytes():
    e = _fails(parse_config_text, '{"model_type": "llama",}')
    assert type(e) is H.ConfigJSONError
    assert _one_line(e) == ("pasted config is not valid JSON (line 1, column 24: Expecting property name enclosed in "
                            "double quotes): paste the complete config.json, unchanged.")
    e = _fails(parse_config_text, b'{"model_type": "\xff"}')
    assert type(e) is H.ConfigJSONError
    assert _one_line(e) == "pasted config is not UTF-8 text: paste the complete config.json, unchanged."


def test_pasted_encoder_models():
    e = _fails(parse_config_text, json.dumps(BERT_BASE))
    assert type(e) is H.NotADecoderError and isinstance(e, ConfigError)
    assert _one_line(e) == ("pasted config is a 'bert' model, not a decoder language model: it has no KV cache to "
                            "plan; choose a decoder (causal) LLM such as meta-llama/Llama-3.1-8B.")


def test_pasted_unusable_field():
    e = _fails(parse_config_text, json.dumps(dict(LLAMA_TINY, num_hidden_layers=0)))
    assert type(e) is H.InvalidConfigError and isinstance(e, ConfigError)
    assert e.field == "num_hidden_layers" and e.value == 0
    assert _one_line(e) == ("pasted config cannot be planned: config field 'num_hidden_layers' = 0: must be at least "
                            "1; check that it is the model's complete config.json.")


# ------------------------------------------------------------------------------------------
# Safetensors metadata -> exact weight bytes
# ------------------------------------------------------------------------------------------
def test_weight_info_gives_exact_bytes(fake_hub: FakeHub):
    info = H.fetch_weight_info("acme/tiny-llama", timeout=2)
    assert info.total == 6_001_024 and info.parameters == {"BF16": 6_000_000, "F32": 1_024}
    assert info.weight_bytes == 6_000_000 * 2 + 1_024 * 4
    assert info.gated is False and info.commit == fake_hub.repos["acme/tiny-llama"].commit
    fp8 = H.fetch_weight_info("acme/fp8-model", timeout=2)
    assert fp8.weight_bytes == 5_000_000 * 1 + 1_000_000 * 2 + 4_096 * 4
    assert H.fetch_weight_info("acme/odd-dtype", timeout=2).weight_bytes is None      # unknown dtype: no guess
    assert H.fetch_weight_info("acme/no-safetensors", timeout=2) is None
    assert H.fetch_weight_info("acme/gated-llama", timeout=2).gated is True
    assert [r.path for r in fake_hub.requests][:1] == ["/api/models/acme/tiny-llama"]
    n = len(fake_hub.requests)
    H.fetch_weight_info("acme/tiny-llama", timeout=2)
    assert len(fake_hub.requests) == n                                               # cached
    commit = fake_hub.repos["acme/tiny-llama"].commit
    assert H.fetch_weight_info("acme/tiny-llama", revision=commit, timeout=2).total == 6_001_024
    assert fake_hub.requests[-1].path == f"/api/models/acme/tiny-llama/revision/{commit}"
    assert type(_fails(H.fetch_weight_info, "acme/missing", timeout=2)) is H.RepoNotFoundError
    assert type(_fails(H.fetch_weight_info, "acme/broken", timeout=2)) is H.HubServerError


def test_safetensors_dtype_widths():
    sizes = {"BF16": 2, "F16": 2, "F32": 4, "F64": 8, "F8_E4M3": 1, "F8_E5M2": 1, "U8": 1, "I8": 1, "I16": 2,
             "I32": 4, "I64": 8, "BOOL": 1}
    for dtype, nbytes in sizes.items():
        assert H.safetensors_weight_bytes({dtype: 1000}) == 1000 * nbytes
    assert H.safetensors_weight_bytes({"F4": 4}) == 2
    assert H.safetensors_weight_bytes({"F4": 3}) is None           # not a whole number of bytes
    assert H.safetensors_weight_bytes({"NF4": 10}) is None
    assert H.safetensors_weight_bytes({"BF16": -1}) is None
    assert H.safetensors_weight_bytes({}) == 0


# ------------------------------------------------------------------------------------------
# Packaging
# ------------------------------------------------------------------------------------------
def test_sources_import_without_huggingface_hub_or_streamlit():
    code = ("import sys, kvcalc.sources as s; r = s.resolve_config('Qwen/Qwen3-8B', offline=True); "
            "s.parse_config_text('{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8}'); "
            "assert 'huggingface_hub' not in sys.modules and 'streamlit' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(H.__file__).parents[2]))
