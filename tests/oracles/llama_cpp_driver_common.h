// Shared by the dev-only drivers tests/oracles/llama_cpp_driver.cpp and llama_cpp_fit_driver.cpp: llama.cpp's
// log lines as "<level> <text>", cache type names, the no_alloc model parameters (metadata only, allocations
// simulated: llama_model_base::load_tensors maps nothing with LLAMA_LOAD_MODE_NONE), and one context's
// "@@N_CTX" / "@@BREAKDOWN" lines (llama_get_memory_breakdown, src/llama-ext.h). Never part of kvcalc.
#pragma once

#include "llama.h"
#include "llama-ext.h"
#include "ggml.h"
#include "ggml-backend.h"

#include <cstdio>
#include <string>

static void log_cb(enum ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_DEBUG) {
        return;
    }
    static const char * tags = "NDIWEC";
    fprintf(stdout, "%c %s", tags[level], text);
    fflush(stdout);
}

static bool type_from_name(const std::string & name, ggml_type & out) {
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const char * n = ggml_type_name((ggml_type) t);
        if (n && name == n) {
            out = (ggml_type) t;
            return true;
        }
    }
    return false;
}

// no_alloc model parameters (n_gpu_layers left at llama.cpp's default, which -fit reads as "choose"); use_extra_bufts = false keeps every weight in the plain CPU buffer (an AMX /
// repack buffer is not counted as host by common/fit.cpp).
static llama_model_params no_alloc_model_params(bool use_extra_bufts) {
    llama_model_params mp = llama_model_default_params();
    mp.no_alloc = true;
    mp.load_mode = LLAMA_LOAD_MODE_NONE;
    mp.lazy_mode = LLAMA_LAZY_MODE_OFF;
    mp.use_extra_bufts = use_extra_bufts;
    return mp;
}

// Create a context of `cp`, print its cells and llama.cpp's byte breakdown per buffer type, free it.
// Returns false (after "@@CTX_FAIL") when llama.cpp refuses the context.
static bool probe_context(llama_model * model, const llama_context_params & cp) {
    llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        printf("@@CTX_FAIL\n");
        fflush(stdout);
        return false;
    }
    printf("@@N_CTX %u %u %u\n", llama_n_ctx(ctx), llama_n_ctx_seq(ctx), llama_n_seq_max(ctx));
    for (const auto & [buft, mb] : llama_get_memory_breakdown(ctx)) {
        printf("@@BREAKDOWN %s %zu %zu %zu\n", ggml_backend_buft_name(buft), mb.model, mb.context, mb.compute);
    }
    printf("@@CTX_OK\n");
    fflush(stdout);
    llama_free(ctx);
    return true;
}
