// Dev-only driver for tests/oracles/llama_cpp_oracle.py: loads one GGUF with llama.cpp's own loader
// (llama_model_params.no_alloc = true: metadata only, allocations simulated) and creates one context per
// line of standard input, printing llama.cpp's log lines and the exact byte breakdown per buffer type
// (llama_get_memory_breakdown, src/llama-ext.h). Built by the oracle script against a llama.cpp build;
// never part of kvcalc or of the test suite.
//
// stdin: "PROBE" (load the model only), or one case per line:
//   n_ctx n_seq_max kv_unified type_k type_v flash_attn(-1|0|1) swa_full n_ubatch n_batch
// stdout: every log line as "<level> <text>", then "@@..." markers.
#include "llama_cpp_driver_common.h"

#include <iostream>
#include <sstream>

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL.gguf < cases\n", argv[0]);
        return 2;
    }
    llama_log_set(log_cb, nullptr);
    llama_backend_init();

    llama_model_params mp = no_alloc_model_params(true);
    mp.n_gpu_layers = 0;
    llama_model * model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        printf("@@MODEL_FAIL\n");
        return 1;
    }
    printf("@@MODEL_OK\n");

    std::string line;
    int i = 0;
    while (std::getline(std::cin, line)) {
        if (line.empty() || line == "PROBE") {
            continue;
        }
        std::istringstream in(line);
        unsigned n_ctx, n_seq, unified, swa_full, n_ubatch, n_batch;
        int fa;
        std::string tk, tv;
        in >> n_ctx >> n_seq >> unified >> tk >> tv >> fa >> swa_full >> n_ubatch >> n_batch;
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx = n_ctx;
        cp.n_seq_max = n_seq;
        cp.kv_unified = unified != 0;
        cp.flash_attn_type = (llama_flash_attn_type) fa;
        cp.swa_full = swa_full != 0;
        cp.n_ubatch = n_ubatch;
        cp.n_batch = n_batch;
        cp.n_threads = 1;
        cp.n_threads_batch = 1;
        printf("@@CASE %d\n", i++);
        fflush(stdout);
        if (!type_from_name(tk, cp.type_k) || !type_from_name(tv, cp.type_v)) {
            printf("@@CTX_FAIL unknown type\n");
            continue;
        }
        probe_context(model, cp);
    }
    llama_model_free(model);
    llama_backend_free();
    printf("@@END\n");
    return 0;
}
