"""GGUF weights: ggml tensor types (:mod:`.types`), llama.cpp's file-type mixes (:mod:`.mixes`) and a
bounded reader of a .gguf file's header and tensor-info table (:mod:`.reader`)."""
