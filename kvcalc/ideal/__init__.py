"""The ``ideal`` runtime: the least the KV cache must hold (kvcalc.kv), unpaged, nothing else counted.

``engine``  :data:`~kvcalc.ideal.engine.ENGINE` (kvcalc.engines.base.Engine) and the unpaged planning
            shared with the transformers runtime (kvcalc.hf_transformers): weights + KV (+ the runtime's
            overhead) against the GPU's memory, from the deployment's compiled stage caches.
"""
