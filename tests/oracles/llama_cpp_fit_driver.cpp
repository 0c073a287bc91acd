// Dev-only driver for tests/oracles/llama_cpp_fit_oracle.py: runs llama.cpp's own `-fit`
// (common/fit.cpp common_fit_params, the function llama-server calls before loading) on one GGUF with a
// STATED memory size, then probes a context the way tests/oracles/llama_cpp_driver.cpp does (no_alloc,
// llama_get_memory_breakdown). Built by the oracle script together with the vendored common/fit.cpp,
// common/log.cpp and common/json.cpp; never part of kvcalc or of the test suite.
//
// A CPU build has no GPU device, so common_fit_params takes its "device-free-memory" branch for nd == 0: the
// host's total memory (ggml_backend_dev_memory of the CPU device) minus the margin (--fit-target), shrinking
// an automatic n_ctx (0) down to n_ctx_min (--fit-ctx). fit.cpp is compiled with
// -Dggml_backend_dev_memory=oracle_dev_memory, so the memory it reads is the one stated on the case line.
//
// stdin, one case per line:
//   FIT n_seq_max kv_unified type_k type_v flash_attn n_ubatch memory_bytes margin_bytes n_ctx_min
//   CTX n_ctx n_seq_max kv_unified type_k type_v flash_attn n_ubatch
// stdout: "@@FIT status n_ctx" or "@@N_CTX ..." + "@@BREAKDOWN buft model context compute", "@@CTX_OK".
#include "llama_cpp_driver_common.h"
#include "fit.h"

#include <iostream>
#include <sstream>
#include <vector>

static size_t g_memory = 0;

bool tty_can_use_colors() { return false; }  // common/common.cpp, not linked: log.cpp asks it

extern "C" void oracle_dev_memory(ggml_backend_dev_t, size_t * free, size_t * total) {
    *free = g_memory;
    *total = g_memory;
}

static llama_model_params model_params() {
    return no_alloc_model_params(false);
}

static bool ctx_params(std::istringstream & in, llama_context_params & cp, bool with_ctx) {
    unsigned n_ctx = 0, n_seq, unified, n_ubatch;
    int fa;
    std::string tk, tv;
    if (with_ctx) {
        in >> n_ctx;
    }
    in >> n_seq >> unified >> tk >> tv >> fa >> n_ubatch;
    cp = llama_context_default_params();
    cp.n_ctx = n_ctx;
    cp.n_seq_max = n_seq;
    cp.kv_unified = unified != 0;
    cp.flash_attn_type = (llama_flash_attn_type) fa;
    cp.n_ubatch = n_ubatch;
    cp.swa_full = false;  // llama-server's default (common/common.h); the library's default is true
    cp.n_threads = 1;
    cp.n_threads_batch = 1;
    return type_from_name(tk, cp.type_k) && type_from_name(tv, cp.type_v);
}

static void run_fit(const char * path, std::istringstream & in) {
    llama_context_params cp;
    bool ok = ctx_params(in, cp, false);
    unsigned long long memory, margin;
    unsigned n_ctx_min;
    in >> memory >> margin >> n_ctx_min;
    if (!ok) {
        printf("@@FIT_FAIL unknown type\n");
        return;
    }
    g_memory = memory;
    llama_model_params mp = model_params();
    std::vector<float> split(llama_max_devices(), 0.0f);
    std::vector<llama_model_tensor_buft_override> over(llama_max_tensor_buft_overrides());
    std::vector<size_t> margins(llama_max_devices(), margin);
    common_params_fit_status st = common_fit_params(path, &mp, &cp, split.data(), over.data(), margins.data(),
                                                    n_ctx_min, nullptr, GGML_LOG_LEVEL_INFO);
    printf("@@FIT %d %u %d\n", (int) st, cp.n_ctx, mp.n_gpu_layers);
    llama_log_set(log_cb, nullptr);
}

static void run_ctx(llama_model * model, std::istringstream & in) {
    llama_context_params cp;
    if (!ctx_params(in, cp, true)) {
        printf("@@CTX_FAIL unknown type\n");
        return;
    }
    probe_context(model, cp);
}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL.gguf < cases\n", argv[0]);
        return 2;
    }
    llama_log_set(log_cb, nullptr);
    llama_backend_init();
    llama_model_params mp = model_params();
    llama_model * model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        printf("@@MODEL_FAIL\n");
        return 1;
    }
    printf("@@MODEL_OK\n");
    std::string line;
    int i = 0;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string mode;
        in >> mode;
        if (mode != "FIT" && mode != "CTX") {
            continue;
        }
        printf("@@CASE %d\n", i++);
        fflush(stdout);
        if (mode == "FIT") {
            run_fit(argv[1], in);
        } else {
            run_ctx(model, in);
        }
        fflush(stdout);
    }
    llama_model_free(model);
    llama_backend_free();
    printf("@@END\n");
    return 0;
}
