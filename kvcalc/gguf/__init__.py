"""GGUF weights: ggml tensor types (:mod:`.types`), llama.cpp's file-type mixes (:mod:`.mixes`) and a
bounded reader of a .gguf file's header and tensor-info table (:mod:`.reader`)."""
from .mixes import FILE_TYPES, GgufWeights, file_type_names, gguf_weights
from .reader import GGUFHeader, read_gguf_header
from .tensor import TensorInfo
from .types import GGML_TYPES, GGMLType, ggml_type

__all__ = ["FILE_TYPES", "GGML_TYPES", "GGMLType", "GGUFHeader", "GgufWeights", "TensorInfo", "file_type_names",
           "ggml_type", "gguf_weights", "read_gguf_header"]
