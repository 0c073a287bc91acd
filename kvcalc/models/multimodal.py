"""Multimodal models with modules of their own: Mllama, Fuyu, Florence-2, GIT, IDEFICS, Kosmos-2, BLIP-2 /
InstructBLIP, Molmo 2, Muse (Spark), Phi-4 multimodal, Chameleon, Emu3 and Apertus 1.5.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from ..config import ConfigReader, head_dim_or_derived, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .audio_towers import muse_spark_audio, phi4_audio, wavtokenizer_encoder
from .blocks import attention_heads, blip2_qformer, gated_mlp, linear, lm_head, registry_entry
from .classic_decoders import opt
from .counts import Tally
from .image_tokenizers import chameleon_vq, emu3_vq
from .llama import llama_like
from .registry import lookup
from .subconfigs import sub_config, text_view, typed_sub, wrapper_sub
from .vision_towers import pooling_head, vit_layers
from .wrappers import TOWERS, count_wrapper, counter, own_text_wrapper


def _mllama_vision(v: ConfigReader) -> int:
    """Mllama vision encoder (no biases on attention):
    patch conv ``C*p*p*H``, class embedding ``H``, gated position embedding ``1 + P*H + (R+1)*T*P*H``
    (``P = (img/p)^2 + 1`` patches, ``R`` aspect ratios, ``T`` tiles), two gated tile embeddings
    ``(R+1)*T*H + 1``, two LayerNorms ``2*H``; ``num_hidden_layers`` layers of ``4*H*H`` attention,
    MLP ``H*I+I + I*H+H``, 2 LayerNorms ``4*H``; ``num_global_layers`` more with 2 scalar gates each.
    """
    hidden, inter = v.get_int("hidden_size"), v.get_int("intermediate_size")
    n_local, n_global = v.get_int("num_hidden_layers", minimum=0), v.get_int("num_global_layers", minimum=0)
    heads = v.get_int("attention_heads", "num_attention_heads")
    if hidden % heads:
        raise ConfigError(v.field_name("hidden_size"), hidden, f"is not divisible by attention_heads ({heads})")
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    tiles = v.get_int("max_num_tiles")
    n_ratios = len(v.opt_list("supported_aspect_ratios") or ())
    patches = (image // patch) ** 2 + 1
    n = channels * patch * patch * hidden + hidden
    n += 1 + patches * hidden + (n_ratios + 1) * tiles * patches * hidden
    n += 2 * ((n_ratios + 1) * tiles * hidden + 1) + 4 * hidden
    layer = 4 * hidden * hidden + linear(hidden, inter, True) + linear(inter, hidden, True) + 4 * hidden
    n += n_local * layer + n_global * (layer + 2)
    return n


def mllama(top: ConfigReader, t: Tally) -> None:
    """MllamaForConditionalGeneration: text decoder with ``V+8`` embedding rows, self-attention layers
    (Llama-style, ``d = H/n_q``, no biases) and cross-attention layers (same projections + q/k norms ``2*d``
    + 2 scalar gates); vision encoder; projector ``vision_output_dim*H + H``; lm_head ``V*H``, never tied.
    """
    text = typed_sub(top, "text_config", "mllama_text_model", ("mllama_text_model",))
    vision = typed_sub(top, "vision_config", "mllama_vision_model", ("mllama_vision_model",))
    vocab, hidden, n_layers = text.get_int("vocab_size"), text.get_int("hidden_size"), text.get_int("num_hidden_layers")
    inter = text.get_int("intermediate_size")
    n_q, n_kv = attention_heads(text)
    d = hidden // n_q
    cross = {i for i in text.get_int_list("cross_attention_layers") if 0 <= i < n_layers}
    attn = linear(hidden, n_q * d) + 2 * linear(hidden, n_kv * d) + linear(n_q * d, hidden)
    t.add("embedding", (vocab + 8) * hidden)
    t.add("attention", n_layers * attn + len(cross))  # + cross_attn_attn_gate
    t.add("norms", n_layers * 2 * hidden + len(cross) * 2 * d + hidden)
    t.add("mlp", n_layers * gated_mlp(hidden, inter) + len(cross))  # + cross_attn_mlp_gate
    lm_head(top, t, hidden, vocab, tied=False)  # transformers never ties Mllama's head (its rows are V, not V+8)
    t.add("vision", _mllama_vision(vision) + linear(vision.get_int("vision_output_dim"), hidden, True))


# FuyuConfig.sub_configs_defaults["text_config"].init_kwargs: the persimmon decoder Fuyu builds without a text_config
_FUYU_TEXT = {"vocab_size": 262144, "max_position_embeddings": 16384, "hidden_size": 4096, "intermediate_size": 16384,
              "num_hidden_layers": 36, "num_attention_heads": 64, "qk_layernorm": True}


def fuyu(top: ConfigReader, t: Tally) -> None:
    """FuyuForCausalLM (transformers/models/fuyu/modeling_fuyu.py FuyuModel): the persimmon decoder of
    ``text_config`` (without one, Persimmon with FuyuConfig's text defaults), no vision tower: image patches
    enter through vision_embed_tokens ``(p*p*C)*H + H`` (counted as vision); lm_head ``V*H`` unless the
    top-level tie_word_embeddings (default false) ties it. A flat config's top-level decoder fields are its
    text_config (FuyuConfig seeds it from them: :func:`kvcalc.models.subconfigs.text_view`).
    """
    text = text_view(top, registry_entry(top), _FUYU_TEXT)
    if text.model_type != "persimmon":
        raise UnsupportedError(f"{top.path}text_config.model_type '{text.model_type}' is not counted for fuyu "
                               "(expected persimmon)")
    llama_like(text, t, head=False)
    hidden = text.get_int("hidden_size")
    lm_head(top, t, hidden, text.get_int("vocab_size"))
    patch = top.get_int("patch_size")
    t.add("vision", linear(patch * patch * top.get_int("num_channels"), hidden, True))


def multimodal(f: ConfigReader, t: Tally) -> None:
    """Vision-language wrappers: :func:`kvcalc.models.wrappers.count_wrapper`, given this module's text counters."""
    count_wrapper(f, t)


def chameleon(f: ConfigReader, t: Tally) -> None:
    """ChameleonForConditionalGeneration (modeling_chameleon.py): a Llama decoder whose q_norm / k_norm are
    LayerNorms over ``(heads, head_dim)`` with weight and bias (``2*(n_q + n_kv)*d`` per layer: the entry's
    full_qk_norm gives the weights, the biases are added here; ChameleonSwinDecoderLayer holds the same norms),
    plus the frozen VQ-VAE image tokenizer of ``vq_config`` (:func:`chameleon_vq`, counted as vision)."""
    llama_like(f, t)
    n_q, n_kv = attention_heads(f)
    t.add("norms", f.get_int("num_hidden_layers") * (n_q + n_kv) * (f.get_int("hidden_size") // n_q))
    t.add("vision", chameleon_vq(sub_config(f, "vq_config", "chameleon_vqgan", {})))


def apertus1p5(f: ConfigReader, t: Tally) -> None:
    """Apertus1p5ForConditionalGeneration (transformers/models/apertus1p5/modeling_apertus1p5.py,
    Apertus1p5Model): the apertus1p5_text decoder and its VQ vision tokenizer by
    :func:`kvcalc.models.wrappers.count_wrapper`, the audio tokenizer of audio_config (always built,
    ``AutoModel.from_config``: a WavTokenizerEncoderModel, :func:`kvcalc.models.audio_towers.wavtokenizer_encoder`)
    counted as other; an untied lm_head is ``O*H`` with ``O`` = output_vocab_size (a pruned head), else ``V``."""
    count_wrapper(f, t)
    text = sub_config(f, "text_config", "apertus1p5_text", {})
    audio = sub_config(f, "audio_config", "wavtokenizer_encoder", {}, {"wavtokenizer_encoder": None})
    t.add("other", wavtokenizer_encoder(audio))
    vocab, out = text.get_int("vocab_size"), text.opt_int("output_vocab_size")
    if out is not None and out > vocab:     # Apertus1p5TextConfig.validate_output_vocab_size
        raise ConfigError(text.field_name("output_vocab_size"), out, f"must be at most vocab_size ({vocab})")
    if out is not None and not t.tied:      # tied, the head is the embedding table (tie_weights), pruned or not
        t.add("lm_head", (out - vocab) * text.get_int("hidden_size"))


def florence2(f: ConfigReader, t: Tally) -> None:
    """Florence2ForConditionalGeneration (transformers/models/florence2/modeling_florence2.py, Florence2Model):
    :func:`own_text_wrapper` over the encoder-decoder text model of text_config (``AutoModel``, default BART),
    counted by its own counter, and the DaViT tower (lm_head tied to ``shared`` by default)."""
    text = sub_config(f, "text_config", "bart", {})
    text_entry = lookup(text.model_type)
    if text_entry is None or text_entry.kind != "encoder_decoder" or text_entry.params is None:
        raise UnsupportedError(f"{f.path}text_config.model_type '{text.model_type}' is not counted for florence2 "
                               "(an encoder-decoder text model kvcalc counts, such as bart, is expected)")
    own_text_wrapper(f, t, text, counter(text_entry.params))


def git(f: ConfigReader, t: Tally) -> None:
    """GitForCausalLM (transformers/models/git/modeling_git.py, GitModel): GitEmbeddings: word ``V*H`` and position
    ``P*H`` tables, LayerNorm ``2H``; ``L`` BERT-style GitLayers: query/key/value ``3*(H*H+H)``, output dense
    ``H*H+H`` and LayerNorm ``2H`` (attention), intermediate ``H*I+I``, output ``I*H+H`` (mlp), LayerNorm ``2H``;
    the GitVisionModel of vision_config (CLIP's modules: :data:`kvcalc.models.wrappers.TOWERS`'s CLIP count), the
    GitProjection ``H_v*H+H`` + LayerNorm ``2H`` and, with num_image_with_embedding ``k``, ``k`` temporal
    embeddings ``H_v`` (vision); output ``V*H`` (unless tie_word_embeddings ties it to the word table) and its
    bias ``V``, kept when tied (lm_head)."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    inter = f.get_int("intermediate_size")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    t.add("embedding", (vocab + f.get_int("max_position_embeddings")) * hidden)
    t.add("norms", 2 * hidden + n_layers * 4 * hidden)
    t.add("attention", n_layers * 4 * linear(hidden, hidden, True))
    t.add("mlp", n_layers * (linear(hidden, inter, True) + linear(inter, hidden, True)))
    vision = sub_config(f, "vision_config", "git_vision_model", {}, {"git_vision_model": None})
    hv = vision.get_int("hidden_size")
    frames = f.opt_int("num_image_with_embedding", minimum=0) or 0
    t.add("vision", TOWERS["clip_vision_model"](vision) + linear(hv, hidden, True) + 2 * hidden + frames * hv)
    lm_head(f, t, hidden, vocab)
    t.add("lm_head", vocab)


def emu3(f: ConfigReader, t: Tally) -> None:
    """Emu3ForConditionalGeneration (modeling_emu3.py): the emu3_text_model decoder of text_config (Llama
    modules, :func:`llama_like`), lm_head ``V*H`` unless the top-level tie_word_embeddings ties it, and the
    frozen VQ-VAE image tokenizer of vq_config (:func:`emu3_vq`, counted as vision)."""
    text = sub_config(f, "text_config", "emu3_text_model", {})
    llama_like(text, t, head=False)
    lm_head(f, t, text.get_int("hidden_size"), text.get_int("vocab_size"))
    t.add("vision", emu3_vq(sub_config(f, "vq_config", "emu3_vqgan", {})))


def molmo2_text(f: ConfigReader, t: Tally) -> None:
    """Molmo2TextModel (modeling_molmo2.py): a Llama-style decoder (:func:`llama_like`; q/k/v biases with
    attention_bias, o_proj none) whose embed_tokens holds ``V + additional_vocab_size`` rows (lm_head ``V``).
    Molmo2Attention's q/k RMSNorms are per head (``2d``) with qk_norm_type "qwen3" and over the whole projections
    (``n_q*d + n_kv*d``) with "olmo"."""
    llama_like(f, t)
    hidden = f.get_int("hidden_size")
    t.add("embedding", f.get_int("additional_vocab_size", minimum=0) * hidden)
    norm_type = f.get_str("qk_norm_type")
    if norm_type not in ("qwen3", "olmo"):
        raise ConfigError(f.field_name("qk_norm_type"), norm_type, "must be 'qwen3' or 'olmo'")
    if norm_type == "olmo":
        n_q, n_kv = attention_heads(f)
        d = head_dim_or_derived(f, hidden, n_q)
        t.add("norms", f.get_int("num_hidden_layers") * ((n_q + n_kv) * d - 2 * d))


def muse_text(f: ConfigReader, t: Tally) -> None:
    """MuseGlimmerTextModel (modeling_muse_glimmer.py): :func:`llama_like` with MuseGlimmerTextAttention's
    gate_proj ``H -> n_q*d`` (no bias; the ``gated_q_proj`` quirk), four MuseGlimmerTextCenteredRMSNorms ``4H`` per
    layer, a final RMSNorm ``H``; the q/k norm and the embedding norm hold no weights. attention_bias is refused
    (gated_q_proj would count a bias on the gate, which has none)."""
    if f.get_bool("attention_bias"):
        raise UnsupportedError(f"{f.path}attention_bias: true is not counted for {f.model_type}")
    llama_like(f, t)


def muse_spark_text(f: ConfigReader, t: Tally) -> None:
    """MuseSparkTextModel (modeling_muse_spark.py). Embedding ``V*H`` (its norm holds no weight); per layer
    MuseSparkTextAttention as Muse Glimmer's (q/k/v/o ``2*H*n_q*d + 2*H*n_kv*d`` and gate_proj ``H*n_q*d``, no
    biases; weightless q/k and o norms), 3 weighted norms ``3H`` (input, pre- and post-feedforward; the
    post-attention norm has no weight) and 2 MuseSparkResidualGates ``2H`` (counted as ``other``); a "sparse"
    mlp_layer_types layer (default: all) holds MuseSparkMoE: router ``E*H``, pre_expert_proj ``H*M``,
    pre_expert_norm ``M``, experts ``E*3*M*I_e``, post_expert_norm ``M``, post_expert_proj ``M*H`` (``M`` =
    moe_hidden_size, ``I_e`` = moe_intermediate_size); a "dense" one MuseSparkTextMLP ``3*H*I``. Final norm
    ``H``; lm_head ``V*H`` unless tied."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    if f.get_bool("attention_bias"):
        raise UnsupportedError(f"{f.path}attention_bias: true is not counted for {f.model_type}")
    n_q, n_kv = attention_heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    kinds = f.opt_str_list("mlp_layer_types") or ["sparse"] * n_layers
    if len(kinds) != n_layers or set(kinds) - {"sparse", "dense"}:
        raise ConfigError(f.field_name("mlp_layer_types"), kinds,
                          f"must list 'sparse' or 'dense' for each of the {n_layers} layers")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (3 * hidden * n_q * d + 2 * hidden * n_kv * d))
    t.add("norms", n_layers * 3 * hidden + hidden)
    t.add("other", n_layers * 2 * hidden)
    n_sparse = kinds.count("sparse")
    t.add("mlp", (n_layers - n_sparse) * gated_mlp(hidden, f.get_int("intermediate_size")))
    if n_sparse:
        width, n_exp = f.get_int("moe_hidden_size"), f.get_int("num_local_experts")
        for _ in range(n_sparse):
            t.add("mlp", n_exp * hidden + 2 * hidden * width)
            t.add("norms", 2 * width)
            t.experts(3 * width * f.get_int("moe_intermediate_size"), n_exp, f.opt_int("num_experts_per_tok"),
                      f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)


def phi4_multimodal(f: ConfigReader, t: Tally) -> None:
    """Phi4MultimodalForCausalLM (modeling_phi4_multimodal.py): a Phi-3 decoder at the top level of the config
    (:func:`llama_like`: fused qkv_proj ``H*(n_q*d + 2*n_kv*d)``, o_proj, gate_up / down, no biases; lm_head tied
    by tie_word_embeddings) and the image and audio embedders Phi4MultimodalModel.embed_tokens_extend holds,
    counted as ``vision`` (:func:`kvcalc.models.multimodal.phi4_multimodal_embeds`)."""
    llama_like(f, t)
    t.add("vision", phi4_multimodal_embeds(f))


def muse_spark(f: ConfigReader, t: Tally) -> None:
    """MuseSparkForConditionalGeneration (modeling_muse_spark.py): the wrapper of
    :func:`kvcalc.models.wrappers.count_wrapper` (decoder, vision tower, adapter) plus the audio tower MuseSparkModel
    always builds (:func:`kvcalc.models.audio_towers.muse_spark_audio`), counted as ``vision`` except its final RMSNorm
    (``norms``)."""
    count_wrapper(f, t)
    audio, final_norm = muse_spark_audio(f)
    t.add("vision", audio - final_norm)
    t.add("norms", final_norm)


# wrapper -> (vision tower type, Q-Former type, whether its Q-Former reads the prompt: InstructBLIP's
# InstructBlipQFormerEmbeddings word / position tables and the text-input FFNs of every layer)
_BLIP_PARTS = {"blip-2": ("blip_2_vision_model", "blip_2_qformer", False),
               "instructblip": ("instructblip_vision_model", "instructblip_qformer", True),
               "instructblipvideo": ("instructblipvideo_vision_model", "instructblipvideo_qformer", True)}


def blip2(f: ConfigReader, t: Tally) -> None:
    """Blip2ForConditionalGeneration (modeling_blip_2.py), InstructBlip(Video)ForConditionalGeneration
    (modeling_instructblip(video).py) with a decoder-only language model (OPT): the vision model (width ``H_v``,
    ``I_v``; class_embedding ``H_v``, patch Conv2d ``3*p*p*H_v + H_v``, position_embedding ``((image/p)^2 + 1)*H_v``;
    per encoder layer qkv ``H_v*3H_v`` (+ ``3H_v`` with qkv_bias), projection ``H_v*H_v + H_v``, fc1 / fc2 with
    biases, 2 LayerNorms; post_layernorm ``2H_v``), query_tokens ``num_query_tokens*H_q``, the Q-Former
    (:func:`kvcalc.models.blocks.blip2_qformer`, encoder width ``H_v``; InstructBLIP's adds word and position
    tables ``(V_q + P_q)*H_q`` and the text-input FFNs), language_projection ``H_q*H + H``, and the OPT language
    model (:func:`opt`, lm_head tied by the text config's flag, as OPTForCausalLM). Absent sub-configs are
    their class defaults."""
    if not f.get_bool("use_decoder_only_language_model", default=True):
        raise UnsupportedError("a BLIP-2-style model with an encoder-decoder language model (T5) is not counted yet")
    vision_type, qformer_type, text_input = _BLIP_PARTS[f.model_type]
    vis = wrapper_sub(f, "vision_config", vision_type, {}, absent_ok=True)
    hv, iv, n = vis.get_int("hidden_size"), vis.get_int("intermediate_size"), vis.get_int("num_hidden_layers")
    q = wrapper_sub(f, "qformer_config", qformer_type,
                    {"encoder_hidden_size": hv, "use_qformer_text_input": text_input}, absent_ok=True)
    text = wrapper_sub(f, "text_config", "opt", {}, absent_ok=True)
    patch, image = vis.get_int("patch_size"), vis.get_int("image_size")
    layer = (linear(hv, 3 * hv, vis.get_bool("qkv_bias")) + linear(hv, hv, True) + linear(hv, iv, True)
             + linear(iv, hv, True) + 4 * hv)
    embed = hv + linear(3 * patch * patch, hv, True) + ((image // patch) ** 2 + 1) * hv
    hq = q.get_int("hidden_size")
    tables = (q.get_int("vocab_size") + q.get_int("max_position_embeddings")) * hq if text_input else 0
    opt(text, t)
    t.add("vision", embed + n * layer + 2 * hv + f.get_int("num_query_tokens") * hq + blip2_qformer(q) + tables
          + linear(hq, text.get_int("hidden_size"), True))


def idefics(f: ConfigReader, t: Tally) -> None:
    """IdeficsForVisionText2Text (transformers/models/idefics/modeling_idefics.py, vision.py, perceiver.py).

    Decoder (``H``, ``I``, ``V``, ``L`` layers, ``n`` heads of ``d = H/n``): IdeficsDecoupledEmbedding ``V*H`` plus
    its additional_embedding ``A*H`` (``A`` additional_vocab_size); per IdeficsDecoderLayer q/k/v/o ``4*H*H`` (no
    biases), IdeficsMLP ``3*H*I``, 2 RMSNorms ``2H``; final norm ``H``. ``L // cross_layer_interval``
    IdeficsGatedCrossAttentionLayers: q/o ``2*H*H``, k/v from the vision width ``2*H_v*H``, q/k RMSNorms ``2d``
    with qk_layer_norms, MLP ``3*H*I``, 2 RMSNorms ``2H``, alpha_cross_attn / alpha_dense ``2`` (alpha_type
    float) or ``2H`` (vector). lm_head IdeficsDecoupledLinear ``V*H + A*H`` unless tie_word_embeddings ties both
    (``_tied_weights_keys``). Vision: IdeficsVisionTransformer, CLIP's layout (``TOWERS["clip_vision_model"]``);
    with use_resampler, IdeficsPerceiverResampler (vision): latents ``N*H_v``, per block IdeficsPerceiverAttention
    (2 LayerNorms ``4H_v``, q/k/v ``3*H_v*h*d_r``, output ``h*d_r*H_v``, q/k LayerNorms ``4d_r`` with
    qk_layer_norms_perceiver) and IdeficsMLP (LayerNorm ``2H_v``, fc / c_proj ``2*H_v*4H_v``), final LayerNorm
    ``2H_v``."""
    vis = wrapper_sub(f, "vision_config", "idefics_vision", {}, absent_ok=True)
    vocab, extra = f.get_int("vocab_size"), f.get_int("additional_vocab_size", minimum=0)
    hidden, inter, n_layers = f.get_int("hidden_size"), f.get_int("intermediate_size"), f.get_int("num_hidden_layers")
    heads = f.get_int("num_attention_heads")
    d = hidden_per_head(f, hidden, heads)
    hv = vis.get_int("hidden_size")
    alpha = f.get_str("alpha_type")
    if alpha not in ("float", "vector"):
        raise ConfigError(f.field_name("alpha_type"), alpha,
                          "must be 'float' or 'vector' (IdeficsGatedCrossAttentionLayer)")
    n_cross = n_layers // f.get_int("cross_layer_interval")
    qk = 2 * d if f.get_bool("qk_layer_norms") else 0
    t.add("embedding", (vocab + extra) * hidden)
    t.add("attention", n_layers * 4 * hidden * hidden
          + n_cross * (2 * hidden * hidden + 2 * hv * hidden + (2 if alpha == "float" else 2 * hidden)))
    t.add("mlp", (n_layers + n_cross) * gated_mlp(hidden, inter))
    t.add("norms", (n_layers + n_cross) * 2 * hidden + hidden + n_cross * qk)
    lm_head(f, t, hidden, vocab + extra)
    t.add("vision", TOWERS["clip_vision_model"](vis))
    if f.get_bool("use_resampler"):
        p = wrapper_sub(f, "perceiver_config", "idefics_perciever", {}, absent_ok=True)
        inner = p.get_int("resampler_n_heads") * p.get_int("resampler_head_dim")
        qk_r = 4 * p.get_int("resampler_head_dim") if p.get_bool("qk_layer_norms_perceiver") else 0
        block = 4 * hv + 3 * hv * inner + inner * hv + qk_r + 2 * hv + 2 * hv * 4 * hv
        t.add("vision", p.get_int("resampler_n_latents") * hv + p.get_int("resampler_depth", minimum=0) * block
              + 2 * hv)


def kosmos2(top: ConfigReader, t: Tally) -> None:
    """Kosmos2ForConditionalGeneration (transformers/models/kosmos2/modeling_kosmos2.py).

    Kosmos2TextForCausalLM (``text_config``, Kosmos2TextConfig's names through its attribute_map: ``E`` embed_dim,
    ``F`` ffn_dim, ``L`` layers): embed_tokens ``V*E`` (the sinusoidal positions are a buffer); per
    Kosmos2TextBlock self-attention (KosmosTextAttention) ``4*(E*E + E)`` with its inner_attn_ln ``2E`` (a
    LayerNorm inside the attention module, reported as attention, as tests/reference/test_params.py's name rule
    splits it),
    self_attn_layer_norm and final_layer_norm ``4E``, Kosmos2TextFFN fc1 ``E*F + F``, fc2 ``F*E + E``,
    ffn_layernorm ``2F``; with add_cross_attention an encoder_attn ``4*(E*E + E)`` and its LayerNorm ``2E``;
    final layer_norm ``2E``; lm_head ``V*E`` unless tied: both Kosmos2ForConditionalGeneration and
    Kosmos2TextForCausalLM declare the tie (``_tied_weights_keys``), each under its own config's
    tie_word_embeddings, so either flag ties it. Vision: Kosmos2VisionTransformer, CLIP's layout
    (``TOWERS["clip_vision_model"]``). Kosmos2ImageToTextProjection: dense ``H_v*E + E`` and latent_query
    ``latent_query_num*E`` (other), x_attn ``4*(E*E + E)`` (attention), as Kosmos-2.5's are split."""
    text = wrapper_sub(top, "text_config", "kosmos_2_text_model", {}, absent_ok=True)
    vision = wrapper_sub(top, "vision_config", "kosmos_2_vision_model", {}, absent_ok=True)
    e, heads = text.get_int("hidden_size"), text.get_int("num_attention_heads")
    hidden_per_head(text, e, heads)
    vocab, ffn, n = text.get_int("vocab_size"), text.get_int("ffn_dim"), text.get_int("num_hidden_layers", minimum=0)
    cross = text.get_bool("add_cross_attention")
    attn = 4 * linear(e, e, True)
    t.add("embedding", vocab * e)
    t.add("attention", n * (attn + 2 * e + (attn if cross else 0)))          # + inner_attn_ln
    t.add("mlp", n * (linear(e, ffn, True) + linear(ffn, e, True)))
    t.add("norms", n * (4 * e + 2 * ffn + (2 * e if cross else 0)) + 2 * e)
    t.tied = top.get_bool("tie_word_embeddings") or text.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * e)
    t.add("vision", TOWERS["clip_vision_model"](vision))
    t.add("other", linear(vision.get_int("hidden_size"), e, True) + top.get_int("latent_query_num") * e)
    t.add("attention", attn)


def phi4_multimodal_embeds(f: ConfigReader) -> int:
    """Phi4MultimodalFeatureEmbedding (modeling_phi4_multimodal.py), built into every Phi4MultimodalModel.
    Phi4MultimodalImageEmbedding: Phi4MultimodalVisionModel over ``vision_config`` (SigLIP: patch conv
    ``C*p*p*H + H``, positions ``(img/p)^2 * H``, ``L`` ViT layers, post LayerNorm ``2H``, the attention-pooling
    head, always built), img_projection_up ``H -> H_t`` and img_projection_down ``H_t -> H_t`` with biases, the
    global / sub-image separators ``2H``. Phi4MultimodalAudioEmbedding: :func:`phi4_audio` over ``audio_config``,
    and for speech and vision-speech each an up ``H_a*downsample_rate -> H_t`` and a down ``H_t -> H_t``,
    biased (``H_t`` = the model's hidden_size)."""
    v = sub_config(f, "vision_config", "phi4_multimodal_vision", {}, fixed=True)
    a = sub_config(f, "audio_config", "phi4_multimodal_audio", {}, fixed=True)
    ht = f.get_int("hidden_size")
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    tower = (channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
             + vit_layers(hidden, inter, n_layers) + 2 * hidden + pooling_head(hidden, inter))
    image_embed = tower + linear(hidden, ht, True) + linear(ht, ht, True) + 2 * hidden
    speech_in = a.get_int("hidden_size") * a.get_int("downsample_rate")
    return image_embed + phi4_audio(a) + 2 * (linear(speech_in, ht, True) + linear(ht, ht, True))
