"""A Hub answer whose safetensors metadata counts 2^200 parameters is set aside with a notice, and the plan
goes on from config arithmetic (issue 26), on the local fake Hub.

The bound is physical: no checkpoint holds more than 2^50 elements of one dtype or 2^50 bytes (1 PiB);
the largest published checkpoints are about 2e12 parameters. The fallback figure is the same config
planned from a file (no Hub metadata at all).
"""
from __future__ import annotations

import json

import pytest
from fake_hub import LLAMA_TINY, FakeHub, FakeRepo

from kvcalc import hub as H
from kvcalc.cli import main


def _repo(params: dict[str, int], total: int) -> FakeRepo:
    return FakeRepo(files={"config.json": json.dumps(LLAMA_TINY).encode()},
                    safetensors={"parameters": params, "total": total})


@pytest.mark.parametrize(("params", "words"), [
    ({"BF16": 2**200}, r"about 10\^60 BF16 parameters"),
    ({"BF16": 2**49, "F32": 2**49}, "bytes of weights"),            # 2 x 2^49 + 4 x 2^49 = 6 x 2^49 > 2^50 bytes
])
def test_implausible_counts_are_a_typed_error(fake_hub: FakeHub, params: dict[str, int], words: str) -> None:
    fake_hub.repos["acme/huge"] = _repo(params, 2**200)
    with pytest.raises(H.ImplausibleWeightInfoError, match=words) as e:
        H.fetch_weight_info("acme/huge", timeout=5)
    assert isinstance(e.value, H.HubUnavailableError)        # a fallback applies, as for an unreachable Hub


def test_a_bogus_total_alone_is_replaced_by_the_sum(fake_hub: FakeHub) -> None:
    fake_hub.repos["acme/huge-total"] = _repo({"BF16": 6_000_000, "F32": 1_024}, 2**200)
    info = H.fetch_weight_info("acme/huge-total", timeout=5)
    assert info.total == 6_001_024 and info.weight_bytes == 2 * 6_000_000 + 4 * 1_024


def test_the_cli_plans_from_the_config_with_a_notice(fake_hub: FakeHub, tmp_path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    fake_hub.repos["acme/huge"] = _repo({"BF16": 2**200}, 2**200)
    assert main(["plan", "acme/huge", "--gpu", "h100-sxm", "--timeout", "5", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "note:" in err and "10^60" in err and "weights computed from the config" in err
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_TINY))
    assert main(["plan", str(path), "--gpu", "h100-sxm", "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert json.loads(out)["weights_bytes"] == from_file["weights_bytes"]
